package verify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

var t0 = time.Date(2026, 3, 1, 17, 4, 15, 123e6, time.UTC)

func ts(d time.Duration) string { return clock.Format(t0.Add(d)) }

// fixture builds a workspace through the real writers: two ledgers, two
// memory issues, an audit trail.
func fixture(t *testing.T) workspace.Workspace {
	t.Helper()
	ws := workspace.Workspace{Root: t.TempDir()}
	for _, d := range []string{ws.ClarificationsDir(), ws.MemoryDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeLedger(t, ws, 5, []ledger.Record{record(5, 1, ledger.Resolved,
		ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Middleware or controller?", Timestamp: ts(0)},
		ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Middleware.", Timestamp: ts(time.Minute)},
		ledger.Entry{Round: 1, From: "engineer", Type: ledger.Resolution, Body: "Going with middleware.", Timestamp: ts(2 * time.Minute)},
	), record(5, 2, ledger.Pending,
		ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Which table?", Timestamp: ts(3 * time.Minute)},
	)})
	writeLedger(t, ws, 7, []ledger.Record{record(7, 1, ledger.Answered,
		ledger.Entry{Round: 1, From: "reviewer", Type: ledger.Question, Body: "Tests for the parser?", Timestamp: ts(0)},
		ledger.Entry{Round: 1, From: "engineer", Type: ledger.Answer, Body: "Fuzzed.", Timestamp: ts(time.Minute)},
	)})
	store := memory.New(ws.MemoryDir(), lock.New(lock.Options{}), clock.NewFake(t0))
	store.NoSync = true
	store.Audit = &audit.Trail{Dir: ws.StateDir(), Clock: clock.NewFake(t0)}
	// The reference layout: every row in manifest.json, which the manifest
	// checks below tamper with (TestVerifyDeltaLayout covers the delta).
	store.DeltaLimit = -1
	_, err := store.Store(context.Background(), []memory.Observation{
		{Agent: "engineer", IssueNumber: 5, Category: memory.Decision, Content: "Chose middleware for authentication checks"},
		{Agent: "engineer", IssueNumber: 5, Category: memory.KeyFact, Content: "Sessions expire after thirty minutes"},
		{Agent: "architect", IssueNumber: 7, Category: memory.Error, Content: "The parser failed on empty input files"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func record(issue, seq int, st ledger.Status, entries ...ledger.Entry) ledger.Record {
	r := ledger.Record{ID: fmt.Sprintf("CLR-%d-%03d", issue, seq), IssueNumber: issue, From: entries[0].From, To: "architect",
		Topic: "a topic", Blocking: true, Status: st, Round: 1, MaxRounds: 5, Created: ts(0), StaleAfter: ts(30 * time.Minute)}
	for _, e := range entries {
		r.Thread = append(r.Thread, e.Sealed())
		if e.Round > r.Round {
			r.Round = e.Round
		}
	}
	if st == ledger.Resolved {
		at := r.Thread[len(r.Thread)-1].Timestamp
		r.ResolvedAt = &at
	}
	r.Seal()
	return r
}

func writeLedger(t *testing.T, ws workspace.Workspace, issue int, recs []ledger.Record) {
	t.Helper()
	data, err := jsonfile.Marshal(&ledger.Ledger{IssueNumber: issue, Clarifications: recs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws.LedgerFile(issue), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, ws workspace.Workspace) *Report {
	t.Helper()
	rep, err := Run(ws, alone())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// alone is the options of a check no writer runs beside: the pause
// before the memory files and the trail are read again, which gives a
// writer between its two writes the time to finish, waits for nothing
// then, so it is left out (100 ms a recheck; the tampering tests read
// again every time, issue 37). The rereading itself still happens.
func alone() Options { return Options{beforeRecheck: func() {}} }

// errorsOf lists the problems of severity sev as CODE path id.
func errorsOf(rep *Report, sev Severity) []string {
	var out []string
	for _, p := range rep.Problems {
		if p.Severity == sev {
			out = append(out, strings.TrimSpace(p.Code+" "+p.Path+" "+p.ID))
		}
	}
	return out
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

func obsIDs(t *testing.T, ws workspace.Workspace, issue int) []string {
	t.Helper()
	obs, err := memory.New(ws.MemoryDir(), nil, nil).GetByIssue(context.Background(), issue)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, o := range obs {
		ids = append(ids, o.ID)
	}
	return ids
}

func TestCleanWorkspace(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	rep := run(t, ws)
	if got := errorsOf(rep, Error); len(got) != 0 {
		t.Fatalf("errors on a clean workspace: %v", got)
	}
	c := rep.Counts
	if c.Ledgers != 2 || c.Records != 3 || c.Entries != 6 || c.Observations != 3 || c.IssueFiles != 2 || c.AuditLines != 2 || c.Unhashed != 0 {
		t.Fatalf("counts = %+v", c)
	}
}

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

func TestInformationIsNotAnError(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	// Concurrent work merged: an answer written on one branch while the
	// other resolved, both through the protocol (hashed).
	writeLedger(t, ws, 9, []ledger.Record{record(9, 1, ledger.Resolved,
		ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Q?", Timestamp: ts(0)},
		ledger.Entry{Round: 1, From: "engineer", Type: ledger.Resolution, Body: "Done.", Timestamp: ts(time.Minute)},
		ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "A.", Timestamp: ts(2 * time.Minute)})})
	// Entries and observations of an old tool: no hashes.
	edit(t, ws.LedgerFile(7), `"agentxHash"`, `"otherKey"`)
	edit(t, filepath.Join(ws.MemoryDir(), "issue-5.json"), `"agentxHash"`, `"otherKey"`)
	// A torn last line of the event log and of the audit trail.
	if err := os.WriteFile(ws.EventsFile(), []byte("{\"kind\":\"x\"}\n{\"kind\":\"y"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(ws.StateDir(), audit.FileName), os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"time":"2026`)
	_ = f.Close()
	rep := run(t, ws)
	if got := errorsOf(rep, Error); len(got) != 0 {
		t.Fatalf("errors: %v", got)
	}
	got := errorsOf(rep, Info)
	want := []string{"UNHASHED .agentx/memory/issue-5.json", "AUDIT_TORN .agentx/state/audit.jsonl", "UNHASHED .agentx/state/clarifications/issue-7.json",
		"ENTRY_AFTER_FINAL .agentx/state/clarifications/issue-9.json CLR-9-001#3", "EVENTS_TORN .agentx/state/events.jsonl"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("info = %v, want %v", got, want)
	}
	if rep.Counts.Unhashed != 2 { // edit renamed the first key of each file
		t.Fatalf("unhashed = %d", rep.Counts.Unhashed)
	}
}

// TestAttacks: a symlink, a FIFO or a directory where a state file is
// expected is reported, never followed or waited on; a state directory
// leading outside the workspace stops the check before anything is read.
func TestAttacks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, ws workspace.Workspace)
		want  string
	}{
		{"symlinked ledger", func(t *testing.T, ws workspace.Workspace) {
			outside := filepath.Join(t.TempDir(), "issue-9.json")
			_ = os.WriteFile(outside, []byte(`{"issueNumber":9,"clarifications":[]}`), 0o644)
			mustSymlink(t, outside, ws.LedgerFile(9))
		}, "SYMLINK .agentx/state/clarifications/issue-9.json"},
		{"FIFO ledger", func(t *testing.T, ws workspace.Workspace) {
			if err := syscall.Mkfifo(ws.LedgerFile(9), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "NOT_REGULAR .agentx/state/clarifications/issue-9.json"},
		{"directory for a memory issue file", func(t *testing.T, ws workspace.Workspace) {
			_ = os.Mkdir(filepath.Join(ws.MemoryDir(), "issue-9.json"), 0o755)
		}, "NOT_REGULAR .agentx/memory/issue-9.json"},
		{"FIFO event log", func(t *testing.T, ws workspace.Workspace) {
			_ = syscall.Mkfifo(ws.EventsFile(), 0o644)
		}, "NOT_REGULAR .agentx/state/events.jsonl"},
		{"archive directory outside the workspace", func(t *testing.T, ws workspace.Workspace) {
			outside := t.TempDir()
			_ = os.WriteFile(filepath.Join(outside, "issue-5-archived.json"), []byte(`{"version":1,"issueNumber":5,"observations":[]}`), 0o644)
			mustSymlink(t, outside, filepath.Join(ws.MemoryDir(), "archive"))
		}, "SYMLINK .agentx/memory/archive"},
		{"symlinked audit trail", func(t *testing.T, ws workspace.Workspace) {
			trail := filepath.Join(ws.StateDir(), audit.FileName)
			outside := filepath.Join(t.TempDir(), "audit.jsonl")
			_ = os.Rename(trail, outside)
			mustSymlink(t, outside, trail)
		}, "AUDIT_UNREADABLE .agentx/state/audit.jsonl"},
		{"state directory outside the workspace", func(t *testing.T, ws workspace.Workspace) {
			outside := t.TempDir()
			_ = os.Rename(ws.StateDir(), filepath.Join(outside, "state"))
			mustSymlink(t, filepath.Join(outside, "state"), ws.StateDir())
		}, "WORKSPACE_UNSAFE .agentx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fixture(t)
			tt.setup(t, ws)
			done := make(chan *Report, 1)
			go func() { r, _ := Run(ws, alone()); done <- r }()
			select {
			case rep := <-done:
				if got := errorsOf(rep, Error); len(got) != 1 || got[0] != tt.want {
					t.Fatalf("errors = %v, want [%s]", got, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("verify hung")
			}
		})
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestRepair(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	ctx := context.Background()
	locks := lock.New(lock.Options{})
	// A manifest row removed by hand, a dead process's lock, a dead
	// writer's temporary, a stale monitor index.
	man := filepath.Join(ws.MemoryDir(), "manifest.json")
	data, _ := os.ReadFile(man)
	m, err := memory.ParseManifest(man, data)
	if err != nil {
		t.Fatal(err)
	}
	removed := m.Entries[0].ID
	edit(t, man, `"id": "`+removed+`"`, `"id": "obs-gone-5-1-aaaaaa"`)
	host, _ := os.Hostname()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := cmd.Process.Pid
	lockPath := ws.LedgerFile(7) + ".lock"
	_ = os.WriteFile(lockPath, []byte(fmt.Sprintf(`{"pid":%d,"timestamp":"%s","created":"%s","agent":"x","host":%q}`, deadPID, clock.Format(time.Now()), clock.Format(time.Now()), host)), 0o644)
	tmp := filepath.Join(ws.ClarificationsDir(), ".issue-7.json.tmp-123")
	_ = os.WriteFile(tmp, []byte("{"), 0o644)
	old := time.Now().Add(-time.Hour)
	_ = os.Chtimes(tmp, old, old)
	idx := filepath.Join(ws.ClarificationsDir(), ".monitor-index")
	_ = os.WriteFile(idx, []byte("agentx-monitor-index 2\n"), 0o644)

	rep := run(t, ws)
	want := []string{"MANIFEST_ORPHAN_ENTRY .agentx/memory/manifest.json obs-gone-5-1-aaaaaa", "MANIFEST_MISSING_ENTRY .agentx/memory/issue-5.json " + removed,
		"LOCK_DEAD_PROCESS .agentx/state/clarifications/issue-7.json.lock", "TEMP_LEFTOVER .agentx/state/clarifications/.issue-7.json.tmp-123"}
	got := errorsOf(rep, Error)
	for _, w := range want {
		if !strings.Contains(strings.Join(got, "\n"), w) {
			t.Fatalf("errors %v lack %s", got, w)
		}
	}
	if s := errorsOf(rep, Stale); len(s) != 2 || !strings.HasPrefix(s[1], "MONITOR_INDEX_STALE") {
		t.Fatalf("stale = %v", s)
	}
	before, _ := os.ReadFile(ws.LedgerFile(7))
	done := Repair(ctx, ws, locks, rep)
	for _, d := range done {
		if d.Err != "" {
			t.Fatalf("repair %+v failed", d)
		}
	}
	after := run(t, ws)
	if got := errorsOf(after, Error); len(got) != 0 {
		t.Fatalf("errors after repair: %v (repairs %+v)", got, done)
	}
	for _, p := range []string{lockPath, tmp, idx} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	if now, _ := os.ReadFile(ws.LedgerFile(7)); !bytes.Equal(now, before) {
		t.Fatal("repair changed a ledger")
	}
}

func TestArchiveHoldsWhatCompactionMoved(t *testing.T) {
	t.Parallel()
	ws := fixture(t)
	store := memory.New(ws.MemoryDir(), lock.New(lock.Options{}), clock.NewFake(t0))
	store.Audit = &audit.Trail{Dir: ws.StateDir(), Clock: clock.NewFake(t0)}
	ctx := context.Background()
	_, n, err := store.Compact(ctx, 5, func(obs []memory.Observation) ([]memory.Observation, []memory.Observation, error) {
		ids, _ := jsonfile.Marshal([]string{obs[0].ID, obs[1].ID})
		sum := memory.Observation{Agent: "engineer", IssueNumber: 5, Category: memory.Decision, Content: "Both facts, merged",
			Extra: []jsonfile.Field{{Key: memory.FieldCompactedFrom, Value: bytes.TrimSpace(ids)}}}
		return []memory.Observation{sum}, obs, nil
	})
	if err != nil || n != 2 {
		t.Fatalf("compact: %d, %v", n, err)
	}
	rep := run(t, ws)
	if got := errorsOf(rep, Error); len(got) != 0 || rep.Counts.Archived != 2 {
		t.Fatalf("errors %v, archived %d", got, rep.Counts.Archived)
	}
	arch := store.ArchivePath(5)
	if err := os.Remove(arch); err != nil {
		t.Fatal(err)
	}
	got := errorsOf(run(t, ws), Error)
	if len(got) != 2 || !strings.HasPrefix(got[0], "ARCHIVE_MISSING .agentx/memory/issue-5.json") {
		t.Fatalf("errors %v", got)
	}
}

// FuzzLedgerCheck: whatever a ledger file holds, verify reports and never
// panics or hangs.
func FuzzLedgerCheck(f *testing.F) {
	good, _ := jsonfile.Marshal(&ledger.Ledger{IssueNumber: 5, Clarifications: []ledger.Record{record(5, 1, ledger.Pending,
		ledger.Entry{Round: 1, From: "engineer", Type: ledger.Question, Body: "Q?", Timestamp: ts(0)})}})
	f.Add(good)
	f.Add([]byte(`{"issueNumber":5,"clarifications":[{"id":"CLR-5-001","thread":[{"round":9}]}]}`))
	f.Add([]byte(`{"issueNumber":"5"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &checker{ws: workspace.Workspace{Root: "/w"}, rep: &Report{}}
		c.ledger("/w/.agentx/state/clarifications/issue-5.json", 5, data)
		for _, p := range c.rep.Problems {
			if p.Code == "" || p.Offset > int64(len(data)) {
				t.Fatalf("problem %+v", p)
			}
		}
	})
}

// FuzzMemoryCheck: the same for a memory issue file.
func FuzzMemoryCheck(f *testing.F) {
	f.Add([]byte(`{"version":1,"issueNumber":5,"updatedAt":"x","observations":[{"id":"a","agent":"e","issueNumber":5,"category":"decision","content":"c","summary":"c","tokens":1,"timestamp":"t","agentxHash":"sha256:00"}]}`))
	f.Add([]byte(`{"observations":[{"id":"a"},{"id":"a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &checker{ws: workspace.Workspace{Root: "/w"}, rep: &Report{}}
		c.observations("/w/.agentx/memory/issue-5.json", 5, data, false)
		for _, p := range c.rep.Problems {
			if p.Code == "" || p.Offset > int64(len(data)) {
				t.Fatalf("problem %+v", p)
			}
		}
	})
}
