// Store.Append against Store.Update: for the same change on the same file,
// canonical or not, Append writes byte for byte what Update writes and
// reports what Update reports (the fast path never hides an error).

package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Store.Append writes, byte for byte, what Store.Update writes for the
// same change, whatever the file held (canonical or not) and whatever
// the change turned out to touch.
func TestAppendWritesWhatUpdateWrites(t *testing.T) {
	t.Parallel()
	var files [][]byte
	for _, l := range canonLedgers() {
		data, err := jsonfile.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, data)
		if compact, err := l.MarshalJSON(); err == nil {
			files = append(files, compact)
		}
	}
	ref, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, ref, nil) // nil: no file yet
	changes := map[string]func(*Ledger) error{
		"append one": func(l *Ledger) error {
			l.Clarifications = append(l.Clarifications, newRecord(l, "é"))
			return nil
		},
		"append two": func(l *Ledger) error {
			l.Clarifications = append(l.Clarifications, newRecord(l, "a"), newRecord(l, "b\n"))
			return nil
		},
		"append one past the room": func(l *Ledger) error {
			r := newRecord(l, "long")
			r.Thread[0].Body = strings.Repeat("Why is it so? ", 2*spliceRoom/14)
			l.Clarifications = append(l.Clarifications, r)
			return nil
		},
		"change the first too": func(l *Ledger) error {
			if len(l.Clarifications) > 0 {
				l.Clarifications[0].Status = Abandoned
			}
			l.Clarifications = append(l.Clarifications, newRecord(l, "c"))
			return nil
		},
		"drop the last": func(l *Ledger) error {
			if n := len(l.Clarifications); n > 0 {
				l.Clarifications = l.Clarifications[:n-1]
			}
			return nil
		},
		"raise the high water": func(l *Ledger) error {
			l.SetHighWater(l.MaxSeq() + 5)
			l.Clarifications = append(l.Clarifications, newRecord(l, "d"))
			return nil
		},
		"extend a thread": func(l *Ledger) error {
			if len(l.Clarifications) > 0 {
				r := &l.Clarifications[0]
				r.Thread = append(r.Thread, Entry{Round: 1, From: "x", Type: Answer, Body: "yes"}.Sealed())
			}
			l.Clarifications = append(l.Clarifications, newRecord(l, "e"))
			return nil
		},
	}
	spliced := 0
	for i, data := range files {
		// A copy: a splice writes into the buffer it was read into.
		if l, c, ok := decodeCanonical(append([]byte(nil), data...), 42); ok && len(l.Clarifications) > 0 {
			// The fast path is taken where it can be.
			b := c.base(l)
			if err := changes["append one"](l); err != nil {
				t.Fatal(err)
			}
			if _, ok := b.splice(l); !ok {
				t.Errorf("file %d: an appended record was not spliced in", i)
			}
			spliced++
		}
		for name, fn := range changes {
			var issue int
			if l, err := Decode(data); err == nil && l.IssueNumber > 0 {
				issue = l.IssueNumber
			} else {
				issue = 77
			}
			got := writeWith(t, data, issue, fn, true)
			want := writeWith(t, data, issue, fn, false)
			if !bytes.Equal(got, want) {
				t.Errorf("file %d, %s: Append wrote\n%s\nUpdate\n%s", i, name, got, want)
			}
		}
	}
	if spliced < 3 {
		t.Errorf("%d files took the fast path, want 3", spliced)
	}
}

// newRecord is a request's record as the protocol makes it.
func newRecord(l *Ledger, topic string) Record {
	r := Record{ID: l.NextID(), IssueNumber: l.IssueNumber, From: "engineer", To: "architect", Topic: topic, Status: Pending,
		Round: 1, MaxRounds: 5, Created: "2026-11-29T06:53:50.140Z", StaleAfter: "2026-11-29T07:23:50.140Z",
		Thread: []Entry{Entry{Round: 1, From: "engineer", Type: Question, Body: "Why " + topic + "?", Timestamp: "2026-11-29T06:53:50.140Z"}.Sealed()}}
	r.SetExtra("slaMinutes", json.RawMessage("30"))
	r.Seal()
	if n := len(l.Clarifications); n > 0 {
		r.ID = fmt.Sprintf("%s-%d", l.NextID(), n) // two appended in one change differ
	}
	return r
}

// writeWith runs fn on a ledger file holding data (none when nil) through
// Append or Update and returns what was written.
func writeWith(t *testing.T, data []byte, issue int, fn func(*Ledger) error, appendOnly bool) []byte {
	t.Helper()
	out, err := writeOrErr(t, data, issue, fn, appendOnly)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Whatever a ledger file holds (here: a canonical one changed in the ways
// canonVariants knows, many no longer JSON), Append reports what Update
// reports and writes what it writes: the fast path never hides an error.
func TestAppendReportsWhatUpdateReports(t *testing.T) {
	t.Parallel()
	l := canonLedgers()[2]
	data, err := jsonfile.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	fn := func(l *Ledger) error {
		l.Clarifications = append(l.Clarifications, newRecord(l, "x"))
		return nil
	}
	failed := 0
	for i, v := range canonVariants(data) {
		got, gerr := writeOrErr(t, v, l.IssueNumber, fn, true)
		want, werr := writeOrErr(t, v, l.IssueNumber, fn, false)
		if (gerr == nil) != (werr == nil) || (gerr != nil && !sameError(gerr, werr)) {
			t.Fatalf("variant %d: Append said %v, Update %v", i, gerr, werr)
		}
		if werr != nil {
			if failed == 0 {
				t.Logf("variant %d: both said %v", i, gerr)
			}
			failed++
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("variant %d: Append left\n%s\nUpdate\n%s", i, got, want)
		}
	}
	if failed == 0 {
		t.Fatal("no variant was refused: the test checks no error")
	}
}

// sameError compares two errors naming files in different directories.
func sameError(a, b error) bool {
	strip := func(err error) string {
		s := err.Error()
		if i := strings.Index(s, "issue-"); i >= 0 {
			j := strings.LastIndex(s[:i], " ")
			s = s[:j+1] + s[i:]
		}
		return s
	}
	return strip(a) == strip(b)
}

// writeOrErr runs fn on a ledger file holding data (none when nil)
// through Append or Update and returns the store's error and the file as
// it is then (nil when the store failed and there is no file).
func writeOrErr(t *testing.T, data []byte, issue int, fn func(*Ledger) error, appendOnly bool) ([]byte, error) {
	t.Helper()
	ws := workspace.Workspace{Root: t.TempDir()}
	s := &Store{WS: ws, Locks: lock.New(lock.Options{}), NoSync: true}
	path := ws.LedgerFile(issue)
	if data != nil {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	update := s.Update
	if appendOnly {
		update = s.Append
	}
	_, err := update(context.Background(), issue, fn)
	out, rerr := os.ReadFile(path)
	if rerr != nil && err == nil {
		t.Fatal(rerr)
	}
	return out, err
}
