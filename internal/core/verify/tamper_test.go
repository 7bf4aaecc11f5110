// What verify reports of a workspace changed behind the writers' backs:
// each kind of tampering (an edited observation or answer, a truncated file,
// a duplicated observation, ...) named precisely, and attacks (a symlink, a
// FIFO or a directory where a state file is expected, a state directory
// leading outside) reported, never followed or waited on.

package verify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func TestTamperingIsReportedPrecisely(t *testing.T) {
	t.Parallel()
	const l5, m5, m7 = ".agentx/state/clarifications/issue-5.json", ".agentx/memory/issue-5.json", ".agentx/memory/issue-7.json"
	tests := []struct {
		name   string
		tamper func(t *testing.T, ws workspace.Workspace) string // returns the id expected where one applies
		want   []string                                          // CODE path [id]; {id} is replaced
	}{
		{"one character of an observation edited by hand", func(t *testing.T, ws workspace.Workspace) string {
			edit(t, filepath.Join(ws.MemoryDir(), "issue-5.json"), "Sessions expire", "Sessions expirE")
			return obsIDs(t, ws, 5)[1]
		}, []string{"OBSERVATION_HASH_MISMATCH " + m5 + " {id}"}},
		{"one character of an answer edited by hand", func(t *testing.T, ws workspace.Workspace) string {
			edit(t, ws.LedgerFile(5), `"Middleware."`, `"Middleware!"`)
			return ""
		}, []string{"ENTRY_HASH_MISMATCH " + l5 + " CLR-5-001#2"}},
		{"ledger truncated", func(t *testing.T, ws workspace.Workspace) string {
			truncate(t, ws.LedgerFile(5))
			return ""
		}, []string{"LEDGER_CORRUPT " + l5}},
		{"memory issue file truncated", func(t *testing.T, ws workspace.Workspace) string {
			truncate(t, filepath.Join(ws.MemoryDir(), "issue-7.json"))
			return obsIDs0(t, ws)
		}, []string{"MEMORY_FILE_CORRUPT " + m7, "MANIFEST_TOTALS .agentx/memory/manifest.json", "MANIFEST_ORPHAN_ENTRY .agentx/memory/manifest.json {id}"}},
		{"memory issue file deleted", func(t *testing.T, ws workspace.Workspace) string {
			id := obsIDs(t, ws, 7)[0]
			if err := os.Remove(filepath.Join(ws.MemoryDir(), "issue-7.json")); err != nil {
				t.Fatal(err)
			}
			return id
		}, []string{"OBSERVATION_DELETED .agentx/memory/issue-7.json {id}", "MANIFEST_TOTALS .agentx/memory/manifest.json", "MANIFEST_ORPHAN_ENTRY .agentx/memory/manifest.json {id}"}},
		{"observation duplicated across two issue files", func(t *testing.T, ws workspace.Workspace) string {
			dupIntoIssue7(t, ws)
			return obsIDs(t, ws, 5)[0]
		}, []string{"MEMORY_ISSUE_MISMATCH " + m7 + " {id}", "OBSERVATION_DUPLICATE " + m7 + " {id}"}},
		{"answer beyond the record's round", func(t *testing.T, ws workspace.Workspace) string {
			r := record(5, 1, ledger.Answered,
				ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Q?", Timestamp: ts(0)},
				ledger.Entry{Round: 2, From: "architect", Type: ledger.Answer, Body: "A.", Timestamp: ts(time.Minute)})
			r.Round = 1
			writeLedger(t, ws, 5, []ledger.Record{r})
			return ""
		}, []string{"ENTRY_BEYOND_ROUND " + l5 + " CLR-5-001#2"}},
		{"bad timestamp", func(t *testing.T, ws workspace.Workspace) string {
			edit(t, ws.LedgerFile(7), `"created": "`+ts(0)+`"`, `"created": "yesterday"`)
			return ""
		}, []string{"TIMESTAMP_INVALID .agentx/state/clarifications/issue-7.json CLR-7-001", "RECORD_HASH_MISMATCH .agentx/state/clarifications/issue-7.json CLR-7-001"}},
		// Issue 26 item 7: the fields a record keeps from its creation.
		{"to edited", func(t *testing.T, ws workspace.Workspace) string {
			edit(t, ws.LedgerFile(7), `"to": "architect"`, `"to": "reviewer"`)
			return ""
		}, []string{"RECORD_HASH_MISMATCH .agentx/state/clarifications/issue-7.json CLR-7-001"}},
		{"topic edited", func(t *testing.T, ws workspace.Workspace) string {
			edit(t, ws.LedgerFile(7), `"topic": "a topic"`, `"topic": "another topic"`)
			return ""
		}, []string{"RECORD_HASH_MISMATCH .agentx/state/clarifications/issue-7.json CLR-7-001"}},
		{"maxRounds 5 to 50", func(t *testing.T, ws workspace.Workspace) string {
			edit(t, ws.LedgerFile(7), `"maxRounds": 5`, `"maxRounds": 50`)
			return ""
		}, []string{"RECORD_HASH_MISMATCH .agentx/state/clarifications/issue-7.json CLR-7-001"}},
		{"blocking edited", func(t *testing.T, ws workspace.Workspace) string {
			edit(t, ws.LedgerFile(7), `"blocking": true`, `"blocking": false`)
			return ""
		}, []string{"RECORD_HASH_MISMATCH .agentx/state/clarifications/issue-7.json CLR-7-001"}},
		{"entry after the resolution, added by hand", func(t *testing.T, ws workspace.Workspace) string {
			r := record(5, 1, ledger.Resolved,
				ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Q?", Timestamp: ts(0)},
				ledger.Entry{Round: 1, From: "engineer", Type: ledger.Resolution, Body: "Done.", Timestamp: ts(time.Minute)})
			r.Thread = append(r.Thread, ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Late.", Timestamp: ts(2 * time.Minute)})
			writeLedger(t, ws, 5, []ledger.Record{r})
			return ""
		}, []string{"ENTRY_AFTER_FINAL " + l5 + " CLR-5-001#3"}},
		{"answered while escalated, status by hand", func(t *testing.T, ws workspace.Workspace) string {
			writeLedger(t, ws, 5, []ledger.Record{record(5, 1, ledger.Answered,
				ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Q?", Timestamp: ts(0)},
				ledger.Entry{Round: 1, From: "agent-x", Type: ledger.Escalation, Body: "Stuck.", Timestamp: ts(time.Minute)})})
			return ""
		}, []string{"STATUS_THREAD_MISMATCH " + l5 + " CLR-5-001"}},
		{"issueNumber not the file's, id of another issue, id twice", func(t *testing.T, ws workspace.Workspace) string {
			a := record(5, 1, ledger.Pending, ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Q?", Timestamp: ts(0)})
			b := a
			c := record(6, 1, ledger.Pending, ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Q?", Timestamp: ts(0)})
			c.IssueNumber = 5
			c.Seal()
			data, _ := jsonfile.Marshal(&ledger.Ledger{IssueNumber: 6, Clarifications: []ledger.Record{a, b, c}})
			if err := os.WriteFile(ws.LedgerFile(5), data, 0o644); err != nil {
				t.Fatal(err)
			}
			return ""
		}, []string{"LEDGER_ISSUE_MISMATCH " + l5, "RECORD_ID_DUPLICATE " + l5 + " CLR-5-001", "RECORD_ID_FOREIGN " + l5 + " CLR-6-001"}},
		{"audit line edited", func(t *testing.T, ws workspace.Workspace) string {
			edit(t, filepath.Join(ws.StateDir(), audit.FileName), `"memory.capture"`, `"memory.capturE"`)
			return ""
		}, []string{"AUDIT_LINE_EDITED .agentx/state/audit.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fixture(t)
			id := tt.tamper(t, ws)
			rep := run(t, ws)
			var want []string
			for _, w := range tt.want {
				want = append(want, strings.ReplaceAll(w, "{id}", id))
			}
			got := errorsOf(rep, Error)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("errors =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			for _, p := range rep.Problems {
				if p.Severity == Error && p.ID != "" && p.Offset <= 0 && p.Code != CodeManifestMissing && p.Code != CodeObsDeleted {
					t.Errorf("%s %s has no byte offset", p.Code, p.ID)
				}
			}
		})
	}
}

// obsIDs0 is the id of issue 7's observation, read from the manifest
// (its issue file is being truncated).
func obsIDs0(t *testing.T, ws workspace.Workspace) string {
	data, _ := os.ReadFile(filepath.Join(ws.MemoryDir(), "manifest.json"))
	i := bytes.Index(data, []byte(`"obs-architect-7-`))
	return string(data[i+1 : i+1+bytes.IndexByte(data[i+1:], '"')])
}

func truncate(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
}

// dupIntoIssue7 copies issue 5's first observation, bytes and all, into
// issue 7's file.
func dupIntoIssue7(t *testing.T, ws workspace.Workspace) {
	t.Helper()
	obs5, _ := memory.New(ws.MemoryDir(), nil, nil).GetByIssue(context.Background(), 5)
	p7 := filepath.Join(ws.MemoryDir(), "issue-7.json")
	data, _ := os.ReadFile(p7)
	f, err := memory.ParseIssueFile(p7, data)
	if err != nil {
		t.Fatal(err)
	}
	f.Observations = append(f.Observations, obs5[0])
	out, _ := f.Marshal()
	if err := os.WriteFile(p7, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
