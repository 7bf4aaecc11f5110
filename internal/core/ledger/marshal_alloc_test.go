package ledger

import (
	"fmt"
	"strings"
	"testing"
)

// TestMarshalOneBuffer: rendering a 120-record ledger (about 100 KB)
// takes one buffer, not a dozen grown by doubling (each a fresh run of
// pages on every clarify write).
func TestMarshalOneBuffer(t *testing.T) {
	l := &Ledger{IssueNumber: 7}
	for i := 1; i <= 120; i++ {
		l.Clarifications = append(l.Clarifications, Record{
			ID: fmt.Sprintf("CLR-7-%03d", i), IssueNumber: 7, From: "engineer", To: "architect",
			Topic: fmt.Sprintf("topic %d", i), Status: "pending", Round: 1, MaxRounds: 3,
			Created: "2026-11-28T23:55:40.046Z", StaleAfter: "2026-11-29T23:55:40.046Z",
			Thread: []Entry{{Round: 1, From: "engineer", Type: Question, Timestamp: "2026-11-28T23:55:40.046Z",
				Body: strings.Repeat("Question about the design of the cache layer? ", 16)}},
		})
	}
	var size int
	allocs := testing.AllocsPerRun(10, func() {
		data, err := l.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		size = len(data)
	})
	if size < 100_000 {
		t.Fatalf("rendered %d bytes, want a ledger of about 100 KB", size)
	}
	if allocs > maxMarshalAllocs {
		t.Errorf("MarshalJSON of %d bytes: %.0f allocations, want %d", size, allocs, maxMarshalAllocs)
	}
	if hint := l.sizeHint(); hint < size || hint > size*5/4 {
		t.Errorf("size hint %d for %d bytes", hint, size)
	}
}
