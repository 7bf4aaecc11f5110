package statebranch_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

// A file that only the last synchronised base holds, missing both locally
// (git clean -xfd) and on the branch (the branch deleted, or a new
// state_branch), is "not here yet" on both sides: the sync restores it
// and pushes it back. (Found by internal/e2e/statesafety: the scan took
// "absent on both sides" for "equal on both sides" and skipped the file,
// then the base moved on without it, and it was gone.)
func TestFileOnlyTheBaseHoldsIsRestored(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		branch string
		remove func(t *testing.T, a, b *agent)
	}{
		{"branch deleted and pruned", "agentx/state", func(t *testing.T, a, b *agent) {
			sbt.Git(t, b.dir, "push", "--quiet", "origin", "--delete", "agentx/state")
			sbt.Git(t, a.dir, "fetch", "--quiet", "--prune", "origin")
		}},
		{"state_branch changed", "agentx/state2", func(*testing.T, *agent, *agent) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			remote, a, b := syncedPair(t)
			tc.remove(t, a, b)
			if err := os.Remove(a.path(ledger1)); err != nil { // git clean -xfd
				t.Fatal(err)
			}
			res := a.sync(func(o *statebranch.Options) { o.Branch = tc.branch })
			data, err := os.ReadFile(a.path(ledger1))
			if err != nil {
				t.Fatalf("not restored locally (%v): %+v", err, res)
			}
			if got := sbt.IDs(t, data); !slices.Equal(got, []string{"CLR-1-001"}) {
				t.Errorf("local %v", got)
			}
			if got := sbt.Git(t, remote, "ls-tree", "--name-only", "-r", "refs/heads/"+tc.branch); got == "" {
				t.Errorf("%s holds nothing: %+v", tc.branch, res)
			}
		})
	}
}

// The branch deleted on the remote by another clone, and this clone's
// tracking ref not pruned: the fetch finds no branch, so the remote is
// gone (not the stale tracking ref's tip, which equals the base and hides
// the deletion): the sync says so and pushes the state back. (Found by
// internal/e2e/statesafety, seed 10046: such a clone said nothing and
// pushed nothing until another clone recreated the branch.)
func TestDeletedBranchWithoutPruneIsPushedBack(t *testing.T) {
	t.Parallel()
	remote, a, b := syncedPair(t)
	sbt.Git(t, b.dir, "push", "--quiet", "origin", "--delete", "agentx/state")
	res := a.sync()
	if res.Diverged == nil || res.Diverged.Reason != "gone" || !res.Pushed {
		t.Errorf("after the deletion: diverged %+v, pushed %v", res.Diverged, res.Pushed)
	}
	if got := sbt.Git(t, remote, "ls-tree", "--name-only", "-r", "refs/heads/agentx/state"); got == "" {
		t.Error("the branch was not pushed back")
	}
}

// A sync killed while it moved the tracking ref leaves that ref's lock
// file (refs/remotes/origin/agentx/state.lock). agentx takes such a lock
// over (unflocked and older than a second), but the sync's git fetch comes
// first and fails on it ("cannot lock ref"), so every later sync of the
// clone, and the user's own git fetch, fail until a person deletes it.
// Found by internal/e2e/statesafety (seeds 20251, 20309, 20504).
func TestStaleTrackingRefLockOfAKilledSync(t *testing.T) {
	t.Parallel()
	_, a, b := syncedPair(t)
	lockFile := filepath.Join(a.dir, ".git", "refs", "remotes", "origin", "agentx", "state.lock")
	sbt.WriteFile(t, lockFile, sbt.Git(t, a.dir, "rev-parse", "refs/remotes/origin/agentx/state")+"\n")
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(lockFile, old, old); err != nil {
		t.Fatal(err)
	}
	b.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-002"))
	b.sync()
	o := a.opts
	if _, err := statebranch.Sync(context.Background(), o); err != nil {
		t.Fatalf("sync with a dead writer's ref lock: %v", err)
	}
	if got := sbt.IDs(t, a.read(ledger1)); !slices.Equal(got, []string{"CLR-1-001", "CLR-1-002"}) {
		t.Errorf("local %v", got)
	}
}
