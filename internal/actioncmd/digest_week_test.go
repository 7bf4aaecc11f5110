package actioncmd

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/sync"
)

// TestActionDigestManualReRunLaterInTheWeekEdits: the scheduled Monday
// digest opens the week's issue; a manual re-run on Thursday afternoon
// (past the window's midpoint changing week) edits it, as the example
// workflow promises, instead of opening a second issue; the next Monday
// opens the next one.
func TestActionDigestManualReRunLaterInTheWeekEdits(t *testing.T) {
	t.Parallel()
	monday := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	fake, r := issueRunner(t, 4, "digest", "schedule")
	r.writeLedger(resolvedLedger(4, monday))
	run := func(when time.Time) {
		t.Helper()
		clk := clock.NewFake(when)
		var out bytes.Buffer
		a := &App{Stdout: &out, Stderr: &out, Getenv: func(k string) string { return r.env[k] }, Cwd: r.workspace, Clock: clk}
		if code := a.Run(context.Background(), nil); code != 0 {
			t.Fatalf("digest at %s: exit %d\n%s", when, code, out.String())
		}
	}
	run(monday)
	run(monday.Add(3*24*time.Hour + 7*time.Hour))  // Thursday 13:00
	run(monday.Add(6*24*time.Hour + 17*time.Hour)) // Sunday 23:00
	if got := fake.IssuesLabelled(sync.DigestLabel); len(got) != 1 {
		t.Fatalf("re-runs in the same week opened %d digest issues, want 1", len(got))
	}
	run(monday.Add(7 * 24 * time.Hour))
	got := fake.IssuesLabelled(sync.DigestLabel)
	if len(got) != 2 {
		t.Fatalf("the next Monday: %d digest issues, want 2", len(got))
	}
	first, _ := fake.Issue(got[0])
	next, _ := fake.Issue(got[1])
	if first.Title != "AgentX digest 2026-W47" || next.Title != "AgentX digest 2026-W48" {
		t.Fatalf("titles %q, %q", first.Title, next.Title)
	}
}
