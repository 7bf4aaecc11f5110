package verify

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// TestVerifyDeltaLayout: observations written through the delta (issue 35)
// are listed there, not in manifest.json; verify finds such a store clean,
// and still finds a manifest row tampered with for an issue the delta does
// not hold.
func TestVerifyDeltaLayout(t *testing.T) {
	t.Parallel()
	ws := workspace.Workspace{Root: t.TempDir()}
	if err := os.MkdirAll(ws.MemoryDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	store := memory.New(ws.MemoryDir(), lock.New(lock.Options{}), clock.NewFake(t0))
	store.NoSync = true
	store.Audit = &audit.Trail{Dir: ws.StateDir(), Clock: clock.NewFake(t0)}
	ctx := context.Background()
	for _, o := range []memory.Observation{
		{Agent: "engineer", IssueNumber: 5, Category: memory.Decision, Content: "Chose middleware for authentication checks"},
		{Agent: "architect", IssueNumber: 7, Category: memory.Error, Content: "The parser failed on empty input files"},
		{Agent: "engineer", IssueNumber: 7, Category: memory.KeyFact, Content: "Sessions expire after thirty minutes"},
		{Agent: "engineer", IssueNumber: 9, Category: memory.KeyFact, Content: "The queue drains every minute"},
	} {
		if _, err := store.Store(ctx, []memory.Observation{o}); err != nil {
			t.Fatal(err)
		}
	}
	if held := store.DeltaIssues(); !held[7] || !held[9] || held[5] {
		t.Fatalf("delta holds %v, want issues 7 and 9 (5 made the base)", held)
	}
	rep, err := Run(ws, alone())
	if err != nil {
		t.Fatal(err)
	}
	if got := errorsOf(rep, Error); len(got) != 0 {
		t.Fatalf("a store with a delta: %v", got)
	}
	if got := errorsOf(rep, Stale); len(got) != 0 {
		t.Fatalf("a store with a delta is not stale: %v", got)
	}
	edit(t, filepath.Join(ws.MemoryDir(), "manifest.json"), obsIDs(t, ws, 5)[0], "OBS-gone")
	rep, err = Run(ws, alone())
	if err != nil {
		t.Fatal(err)
	}
	if got := errorsOf(rep, Error); len(got) == 0 {
		t.Fatal("a tampered base row went unreported")
	}
}
