package ledger

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// compactOnly hides AppendIndentedJSON: Marshal then lays out the compact
// MarshalJSON, the path every ledger took before.
type compactOnly struct{ l *Ledger }

func (c compactOnly) MarshalJSON() ([]byte, error) { return c.l.MarshalJSON() }

// indentCases are ledgers in every shape the layout distinguishes: no
// records, records without a thread, unknown keys at each level with
// values in any layout, escapes and non-ASCII text.
var indentCases = []string{
	`{"issueNumber":1,"clarifications":[]}`,
	`{"clarifications":null}`,
	`{"issueNumber":3,"clarifications":[{"id":"x","thread":[]}]}`,
	`{"issueNumber":3,"clarifications":[{"id":"x","resolvedAt":"2026-03-01T17:06:02.020Z","thread":null}]}`,
	"{\"issueNumber\":4,\"z\": [ 1,{\"a\" :\n[]} ,\"\\u00e9\"],\"clarifications\":[{\"id\":\"CLR-4-001\",\"recordType\" : {\"k\":[{},[]]},\"thread\":[{\"body\":\"a \\\"b\\\" <c> & \\u2028 é\\n\",\"extra\":null,\"n\":-1.5e3}]}],\"e\":{}}",
}

func TestIndentedMatchesMarshalJSON(t *testing.T) {
	t.Parallel()
	docs := append([]string(nil), indentCases...)
	for _, p := range []string{"testdata/reference.json", "testdata/typescript-no-record-issue.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	for _, doc := range docs {
		checkIndented(t, []byte(doc))
	}
	// A big one: the bench's ledger shape, 120 records.
	l := &Ledger{IssueNumber: 7}
	for i := 0; i < 120; i++ {
		l.Clarifications = append(l.Clarifications, Record{ID: l.NextID(), IssueNumber: 7, From: "engineer", To: "architect",
			Topic: "topic", Status: Pending, Round: 1, MaxRounds: 6, Created: "2026-11-28T23:55:40.046Z",
			Thread: []Entry{{Round: 1, From: "engineer", Type: Question, Body: strings.Repeat("Why? ", 40), Timestamp: "2026-11-28T23:55:40.046Z"}}})
	}
	data, err := jsonfile.Marshal(compactOnly{l})
	if err != nil {
		t.Fatal(err)
	}
	checkIndented(t, data)
}

// checkIndented decodes doc and requires Marshal's two paths to agree.
func checkIndented(t *testing.T, doc []byte) {
	t.Helper()
	l, err := Decode(doc)
	if err != nil {
		return // not a ledger: nothing to render
	}
	want, werr := jsonfile.Marshal(compactOnly{l})
	got, gerr := jsonfile.Marshal(l)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: compact path error %v, indented path error %v", doc, werr, gerr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: indented path gave\n%s\nthe compact path\n%s", doc, got, want)
	}
}

func FuzzIndentedMatchesMarshalJSON(f *testing.F) {
	for _, c := range indentCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { checkIndented(t, doc) })
}

// TestIndentedOneBuffer: the stored layout of a 120-record ledger is one
// buffer of the right size, not grown by doubling.
func TestIndentedOneBuffer(t *testing.T) {
	l := &Ledger{IssueNumber: 7}
	for i := 0; i < 120; i++ {
		l.Clarifications = append(l.Clarifications, Record{ID: l.NextID(), IssueNumber: 7, From: "engineer", To: "architect",
			Topic: "topic", Status: Pending, Round: 1, MaxRounds: 6, Created: "2026-11-28T23:55:40.046Z",
			Thread: []Entry{{Round: 1, From: "engineer", Type: Question, Body: strings.Repeat("Why? ", 40), Timestamp: "2026-11-28T23:55:40.046Z"}}})
	}
	var out []byte
	allocs := testing.AllocsPerRun(10, func() {
		var err error
		if out, err = l.AppendIndentedJSON(nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("%.0f allocations for %d bytes, want 1", allocs, len(out))
	}
	if cap(out) > len(out)*3/2 {
		t.Errorf("buffer of %d bytes for %d", cap(out), len(out))
	}
}
