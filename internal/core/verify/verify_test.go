// A check of a clean workspace, what is reported as information and not
// as an error, repair, the archive compaction fills, and the fuzz targets
// of the ledger and memory checks. The workspace the tests start from is
// built in fixture_test.go; tampering and attacks are in tamper_test.go.

package verify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
