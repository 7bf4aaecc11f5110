package ledger

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func TestReferenceRoundTripIsByteExact(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonfile.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, data) {
		t.Fatalf("re-encoded ledger differs from the reference layout:\n%s", out)
	}
}

func TestOldFilesLoadAndKeepUnknownKeys(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/typescript-no-record-issue.json")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse("x", data, 7)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(l.Clarifications); got != 2 {
		t.Fatalf("records = %d", got)
	}
	r := l.Clarifications[0]
	if r.IssueNumber != 7 {
		t.Errorf("missing per-record issueNumber not filled: %d", r.IssueNumber)
	}
	if r.Topic != `db <choice> & "quotes"` || !strings.Contains(r.Thread[0].Body, "ünïcødé ✓\nsecond") {
		t.Errorf("text decoded wrong: %q %q", r.Topic, r.Thread[0].Body)
	}
	if r.ResolvedAt != nil {
		t.Errorf("resolvedAt null decoded as %v", *r.ResolvedAt)
	}
	out, _ := jsonfile.Marshal(l)
	for _, want := range []string{`"schemaNote": "written by a later tool"`, `"recordType": "clarification"`, `"tokens": 12`,
		`"topic": "db <choice> & \"quotes\""`, `"issueNumber": 7`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("rewrite lost %s:\n%s", want, out)
		}
	}
	// Decoding our rewrite gives the same ledger again.
	l2, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	out2, _ := jsonfile.Marshal(l2)
	if !bytes.Equal(out, out2) {
		t.Error("rewrite is not stable")
	}
}

func TestNextIDNeverReuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ids  []string
		want string
	}{
		{nil, "CLR-42-001"},
		{[]string{"CLR-42-001", "CLR-42-002"}, "CLR-42-003"},
		{[]string{"CLR-42-003"}, "CLR-42-004"},  // 001, 002 deleted by hand
		{[]string{"CLR-42-999"}, "CLR-42-1000"}, // grows past 3 digits
		{[]string{"clar-test-001", "CLR-42-002"}, "CLR-42-003"},
		{[]string{"CLR-41-009"}, "CLR-42-001"}, // another issue's id
	}
	for _, tt := range tests {
		l := &Ledger{IssueNumber: 42}
		for _, id := range tt.ids {
			l.Clarifications = append(l.Clarifications, Record{ID: id})
		}
		if got := l.NextID(); got != tt.want {
			t.Errorf("NextID(%v) = %s, want %s", tt.ids, got, tt.want)
		}
	}
}

func TestCorruptLedgerIsNeverOverwritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := workspace.Workspace{Root: dir}
	s := &Store{WS: ws, Locks: lock.New(lock.Options{})}
	path := ws.LedgerFile(3)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := []byte("{\"issueNumber\": 3, \"clarifications\": [ {\"id\": \"CLR-3-001\",, } ]}\n")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Update(context.Background(), 3, func(l *Ledger) error {
		l.Clarifications = append(l.Clarifications, Record{ID: l.NextID()})
		return nil
	})
	if !errcode.Is(err, errcode.CorruptState) {
		t.Fatalf("got %v, want CORRUPT_STATE", err)
	}
	// The lock Update holds is its own: no writer can be half-way through
	// the file, so there is no torn rewrite to wait out (TornWait, 2 s, is
	// for readers without the lock).
	if n := tornWaitsAt(path); n != 0 {
		t.Errorf("Update on a corrupt ledger paused %d times: it waited on its own lock", n)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "at byte") {
		t.Errorf("error does not name file and offset: %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, bad) {
		t.Fatal("corrupt ledger was overwritten")
	}
	for _, content := range []string{"", "   \n", "[]", `{"issueNumber":"x"}`, `{"clarifications":[{"round":"two"}]}`} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load(3); !errcode.Is(err, errcode.CorruptState) {
			t.Errorf("Load(%q) = %v, want CORRUPT_STATE", content, err)
		}
	}
}

func TestUpdateCreatesAndIssuesLists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := workspace.Workspace{Root: dir}
	s := &Store{WS: ws, Locks: lock.New(lock.Options{})}
	for _, n := range []int{12, 3, 100} {
		if _, err := s.Update(context.Background(), n, func(l *Ledger) error {
			l.Clarifications = append(l.Clarifications, Record{ID: l.NextID(), Status: Pending})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// Files that are not ledgers are ignored.
	_ = os.WriteFile(filepath.Join(ws.ClarificationsDir(), "issue-x.json"), []byte("{}"), 0o644)
	_ = os.WriteFile(filepath.Join(ws.ClarificationsDir(), "issue-5.json.lock"), []byte("{}"), 0o644)
	issues, err := s.Issues()
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 3 || issues[0] != 3 || issues[1] != 12 || issues[2] != 100 {
		t.Fatalf("Issues = %v", issues)
	}
	all, err := s.LoadAll()
	if err != nil || len(all) != 3 || all[2].Ledger.Clarifications[0].ID != "CLR-100-001" {
		t.Fatalf("LoadAll = %+v, %v", all, err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, p := range []string{"testdata/reference.json", "testdata/typescript-no-record-issue.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"issueNumber":1,"clarifications":[]}`))
	f.Add([]byte(`{"clarifications":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Decode(data)
		if err != nil {
			return
		}
		out, err := jsonfile.Marshal(l)
		if err != nil {
			t.Fatalf("decoded ledger does not encode: %v", err)
		}
		l2, err := Decode(out)
		if err != nil {
			t.Fatalf("our own output does not decode: %v\n%s", err, out)
		}
		out2, _ := jsonfile.Marshal(l2)
		if !bytes.Equal(out, out2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", out, out2)
		}
		checkOpenStable(t, l, out)
		for i := range l.Clarifications {
			if got, want := l.Clarifications[i].Hash(), l.Clarifications[i].hashOfJSON(); got != want {
				t.Fatalf("record %d: Hash %s, from its JSON %s", i, got, want)
			}
		}
	})
}

func BenchmarkDecode50(b *testing.B) {
	l := &Ledger{IssueNumber: 42}
	for i := 0; i < 50; i++ {
		l.Clarifications = append(l.Clarifications, Record{ID: l.NextID(), IssueNumber: 42, From: "engineer", To: "architect",
			Topic: "authentication flow", Status: Resolved, Round: 2, MaxRounds: 5, Created: "2026-03-01T17:04:15.123Z",
			StaleAfter: "2026-03-01T17:34:15.123Z", Thread: []Entry{
				{Round: 1, From: "engineer", Type: Question, Body: "Should token validation live in middleware or in each controller?", Timestamp: "2026-03-01T17:04:15.123Z"},
				{Round: 1, From: "architect", Type: Answer, Body: "Middleware. Validate once per request.", Timestamp: "2026-03-01T17:04:15.123Z"},
			}})
	}
	data, _ := jsonfile.Marshal(l)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
