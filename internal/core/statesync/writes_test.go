package statesync

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/audit"
)

func TestSyncWritesAuditEntries(t *testing.T) {
	t.Parallel()
	ref, err := os.ReadFile("../ledger/testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	// The same ledger with its record's status changed: one record changed.
	changed := []byte(strings.Replace(string(ref), `"status": "resolved"`, `"status": "abandoned"`, 1))
	w := &Writes{}
	const ledgerPath = "state/clarifications/issue-42.json"
	w.Wrote(ledgerPath, nil, ref)                             // created by the first round
	w.Wrote("memory/archive/issue-3.json", []byte("{}"), nil) // removed
	w.Wrote(ledgerPath, ref, changed)                         // written again after a lost push race
	w.Wrote("state/clarifications/issue-9.json", []byte("{not json"), []byte(`{"issueNumber":9,"clarifications":[]}`))
	got := w.Entries("merged from origin/agentx/state")
	if len(got) != 3 {
		t.Fatalf("%d entries, want one per file: %+v", len(got), got)
	}
	l := got[0]
	if l.Op != OpSync || l.Issue != 42 || strings.Join(l.IDs, ",") != "CLR-42-001" {
		t.Errorf("ledger entry %+v", l)
	}
	if len(l.Before) != 0 || !strings.HasPrefix(l.After["CLR-42-001"], "sha256:") {
		t.Errorf("the file did not exist before the sync: before %v, after %v", l.Before, l.After)
	}
	if l.Detail != "merged from origin/agentx/state: "+ledgerPath {
		t.Errorf("detail %q", l.Detail)
	}
	a := got[1]
	if strings.Join(a.IDs, ",") != "memory/archive/issue-3.json" || a.After != nil || !strings.HasPrefix(a.Before["memory/archive/issue-3.json"], "sha256:") {
		t.Errorf("a file without records is named by its path with its bytes' hashes: %+v", a)
	}
	bad := got[2]
	if strings.Join(bad.IDs, ",") != "state/clarifications/issue-9.json" || bad.Before == nil || bad.After == nil || bad.Issue != 9 {
		t.Errorf("a side that does not parse falls back to the file: %+v", bad)
	}
}

// A hook of issue 7 pulls issue 7's ledger and memory file first; a hook
// without an issue has no preference.
func TestOwnIssueFirst(t *testing.T) {
	t.Parallel()
	first := OwnIssueFirst(7)
	for p, want := range map[string]bool{"state/clarifications/issue-7.json": true, "memory/issue-7.json": true,
		"memory/issue-70.json": false, "memory/archive/issue-7.json": false, "state/clarifications/issue-17.json": false} {
		if first(p) != want {
			t.Errorf("first(%q) = %v", p, !want)
		}
	}
	if OwnIssueFirst(0) != nil {
		t.Error("no issue: a preference")
	}
}

// A memory issue file is marked, with the line its write owes, before the
// sync writes it (a sync killed before its lines at the end left
// observations no line stored: internal/e2e/crashpoints); the line is the
// one the marker carries, and the markers go once the lines are appended.
func TestSyncWritesMarkMemoryFiles(t *testing.T) {
	t.Parallel()
	mem := []byte(`{"version":1,"issueNumber":7,"observations":[{"id":"obs-engineer-7-1-abcdef","agent":"engineer","issueNumber":7,"category":"decision","content":"x","summary":"x","tokens":1,"timestamp":"2026-01-01T00:00:00.000Z"}]}`)
	marked := map[string]string{}
	var removed []string
	w := &Writes{
		Mark: func(issue int, e audit.Entry) (string, error) {
			name := fmt.Sprintf("issue-%d-%d", issue, len(marked))
			marked[name] = strings.Join(e.IDs, ",")
			return name, nil
		},
		Unmark: func(m string) { removed = append(removed, m) },
	}
	for _, p := range []string{"memory/issue-7.json", "memory/archive/issue-7-archived.json", "state/clarifications/issue-7.json"} {
		w.Writing(p, nil, mem)
		w.Wrote(p, nil, mem)
	}
	if len(marked) != 1 || marked["issue-7-0"] != "obs-engineer-7-1-abcdef" {
		t.Fatalf("marked %v, want the memory issue file alone, with its observation", marked)
	}
	got := w.Entries("merged")
	if len(got) != 3 || got[0].Detail != "merged: memory/issue-7.json" || got[0].After["obs-engineer-7-1-abcdef"] == "" {
		t.Fatalf("entries %+v", got)
	}
	s := &Syncer{Audit: func(context.Context, audit.Entry) {
		if len(removed) > 0 {
			t.Error("a marker went before the lines were appended")
		}
	}}
	s.AuditWrites(context.Background(), w, "merged")
	if strings.Join(removed, ",") != "issue-7-0" {
		t.Errorf("markers removed: %v", removed)
	}
}
