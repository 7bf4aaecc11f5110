// The workspace the verify tests start from, built through the real
// writers (two ledgers, two memory issues, an audit trail), and the helpers
// that write records, edit files by hand, run a check and list its problems.

package verify

import (
	"bytes"
	"context"
	"fmt"
	"os"
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
