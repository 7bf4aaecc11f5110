package ledger

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// openOf is what a reader decoding the file keeps: the open records.
func openOf(l *Ledger) []Record {
	var out []Record
	for _, r := range l.Clarifications {
		if r.Status.Open() {
			out = append(out, r)
		}
	}
	return out
}

func TestOpenWrittenIsWhatDecodingTheFileGives(t *testing.T) {
	t.Parallel()
	ws := workspace.Workspace{Root: t.TempDir()}
	ref, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	ref0, err := Decode(ref)
	if err != nil {
		t.Fatal(err)
	}
	issue := ref0.IssueNumber
	path := ws.LedgerFile(issue)
	if err := os.MkdirAll(ws.ClarificationsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, ref, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Store{WS: ws, Locks: lock.New(lock.Options{}), NoSync: true}
	if _, ok := s.OpenWritten(path, ref); ok {
		t.Fatal("a store that wrote nothing vouched for a file")
	}
	_, err = s.Update(context.Background(), issue, func(l *Ledger) error {
		l.Clarifications = append(l.Clarifications, Record{ID: l.NextID(), IssueNumber: issue, From: "engineer", To: "architect",
			Topic: "naïve \"quoted\" topic", Status: Pending, Round: 1, MaxRounds: 5, Created: "2026-11-25T06:00:00.000Z",
			StaleAfter: "2026-11-25T07:00:00.000Z", Thread: []Entry{{Round: 1, From: "engineer", Type: Question, Body: "tab\there <b>"}}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := s.OpenWritten(path, data)
	if !ok {
		t.Fatal("the bytes the store wrote were not recognised")
	}
	l, err := LoadFile(path, issue)
	if err != nil {
		t.Fatal(err)
	}
	want := openOf(l)
	if len(want) == 0 {
		t.Fatal("fixture has no open record: the test checks nothing")
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("remembered open records differ from the decoded file:\n got %+v\nwant %+v", got, want)
	}

	// The records are handed over: the caller may change them, and the
	// store vouches for them no more (the file is decoded next time).
	got[0].Thread[0].Body = "changed"
	if again, ok := s.OpenWritten(path, data); ok {
		t.Fatalf("records handed over twice: %+v", again)
	}
	if b, ok := s.WrittenBytes(path); !ok || !bytes.Equal(b, data) {
		t.Fatal("the written bytes were forgotten with the records")
	}

	// Another writer's bytes (here: one byte more) are never vouched for.
	if _, ok := s.OpenWritten(path, append(data, '\n')); ok {
		t.Fatal("bytes this store did not write were vouched for")
	}
	if _, ok := s.OpenWritten(ws.LedgerFile(issue+1), data); ok {
		t.Fatal("the same bytes at another path were vouched for")
	}
}

// checkOpenStable is FuzzDecode's third property: the open records a
// writer remembers (those of the ledger it encoded) are those a reader
// decoding the written bytes gets.
func checkOpenStable(t *testing.T, l *Ledger, out []byte) {
	t.Helper()
	var w written
	w.remember("f", out, l)
	s := &Store{}
	s.written.files = w.files
	got, ok := s.OpenWritten("f", out)
	if !ok {
		t.Fatal("remembered bytes not recognised")
	}
	l2, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	want := openOf(l2)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		a, _ := jsonfile.Marshal(Ledger{Clarifications: got})
		b, _ := jsonfile.Marshal(Ledger{Clarifications: want})
		t.Fatalf("remembered open records differ from the decoded bytes:\n%s\n%s\n%#v\n%#v", a, b, got, want)
	}
}
