package statebranch_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

// The state branch force-pushed to an older commit: the next sync merges
// as a union, says the history was rewritten, and pushes back what the
// older commit lacked, in every clone.
func TestForcePushToAnOlderCommitLosesNothing(t *testing.T) {
	t.Parallel()
	remote, a, b := syncedPair(t)
	old := sbt.Git(t, remote, "rev-parse", "refs/heads/agentx/state")
	a.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-002"))
	a.write("memory/issue-1.json", sbt.Records("o1"))
	a.sync()
	b.sync()
	sbt.Git(t, b.dir, "push", "--quiet", "--force", "origin", old+":refs/heads/agentx/state")
	res := a.sync()
	if res.Diverged == nil || res.Diverged.Reason != "rewritten" || !res.Pushed {
		t.Fatalf("after the force-push: %+v", res)
	}
	if !slices.Equal(res.Diverged.Kept, []string{"memory/issue-1.json", ledger1}) {
		t.Errorf("kept %v", res.Diverged.Kept)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, ledger1)); len(got) != 2 {
		t.Errorf("remote %v", got)
	}
	// Said once: the next sync is an ordinary one.
	if res := a.sync(); res.Diverged != nil {
		t.Errorf("second sync: %+v", res.Diverged)
	}
	b.sync()
	if got := sbt.IDs(t, b.read("memory/issue-1.json")); !slices.Equal(got, []string{"o1"}) {
		t.Errorf("b: %v", got)
	}
}

// The remote branch deleted and the tracking ref pruned: a sync pushes the
// union again instead of reading everything as removed.
func TestDeletedRemoteBranchIsRecreatedFromTheUnion(t *testing.T) {
	t.Parallel()
	remote, a, b := syncedPair(t)
	sbt.Git(t, b.dir, "push", "--quiet", "origin", "--delete", "agentx/state")
	sbt.Git(t, a.dir, "fetch", "--quiet", "--prune", "origin")
	res := a.sync()
	if res.Diverged == nil || res.Diverged.Reason != "gone" || !res.Pushed {
		t.Fatalf("after the deletion: %+v", res)
	}
	if got := sbt.IDs(t, a.read(ledger1)); !slices.Equal(got, []string{"CLR-1-001"}) {
		t.Errorf("local %v", got)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, ledger1)); !slices.Equal(got, []string{"CLR-1-001"}) {
		t.Errorf("remote %v", got)
	}
}

// A corrupt copy pushed to the branch by hand never replaces a valid local
// file; the sync reports it and pushes the merge of the valid copies.
func TestCorruptRemoteFileNeverReplacesAValidLocalOne(t *testing.T) {
	t.Parallel()
	remote, a, b := syncedPair(t)
	// b commits a broken ledger to the branch with plain git.
	sbt.Git(t, b.dir, "fetch", "--quiet", "origin")
	wt := t.TempDir() + "/wt"
	sbt.Git(t, b.dir, "worktree", "add", "--quiet", "--detach", wt, "origin/agentx/state")
	sbt.WriteFile(t, wt+"/"+ledger1, "{ broken")
	sbt.Git(t, wt, "commit", "--quiet", "-am", "broken by hand")
	sbt.Git(t, wt, "push", "--quiet", "origin", "HEAD:refs/heads/agentx/state")
	a.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-002"))
	res := a.sync()
	if len(res.Corrupt) != 1 || res.Corrupt[0].Side != "remote" || res.Corrupt[0].Commit == "" || !res.Pushed {
		t.Fatalf("%+v", res)
	}
	if got := sbt.IDs(t, a.read(ledger1)); len(got) != 2 {
		t.Errorf("local %v", got)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, ledger1)); len(got) != 2 {
		t.Errorf("remote %v: the valid merge replaces the broken copy", got)
	}
}

// A new state branch name (or remote): the local state goes to the new
// branch whole.
func TestChangedStateBranchKeepsTheLocalState(t *testing.T) {
	t.Parallel()
	remote, a, _ := syncedPair(t)
	res := a.sync(func(o *statebranch.Options) { o.Branch = "agentx/state2" })
	if !res.Pushed || res.Diverged == nil {
		t.Fatalf("%+v", res)
	}
	if got := sbt.IDs(t, a.read(ledger1)); !slices.Equal(got, []string{"CLR-1-001"}) {
		t.Errorf("local %v", got)
	}
	if got := sbt.Git(t, remote, "show", "refs/heads/agentx/state2:"+ledger1); got == "" {
		t.Error("new branch empty")
	}
	if _, err := os.Stat(a.path(ledger1)); err != nil {
		t.Error(err)
	}
}

// Recover brings back what the history holds and the local files lack
// without a tombstone, and nothing a tombstone removed.
func TestRecoverBringsBackWhatHasNoTombstone(t *testing.T) {
	t.Parallel()
	remote, a, _ := syncedPair(t)
	a.write("memory/issue-5.json", sbt.Records("o5", "o6", "o7"))
	a.sync()
	a.write("memory/issue-5.json", `{"records":[{"id":"o6"},{"id":"o7"}],"dead":["o5"]}`)
	a.sync()
	// The loss: the branch rewritten without o7 and issue 1's ledger, and
	// a base that no longer remembers them (the old sync's doing).
	lost := t.TempDir() + "/lost"
	sbt.Git(t, a.dir, "worktree", "add", "--quiet", "--detach", lost, "origin/agentx/state")
	sbt.WriteFile(t, lost+"/memory/issue-5.json", `{"records":[{"id":"o6"}],"dead":["o5"]}`+"\n")
	sbt.Git(t, lost, "rm", "--quiet", ledger1)
	sbt.Git(t, lost, "commit", "--quiet", "-am", "lost")
	sbt.Git(t, lost, "push", "--quiet", "origin", "HEAD:refs/heads/agentx/state")
	sbt.Git(t, a.dir, "update-ref", "-d", statebranch.SyncedRef)
	sbt.WriteFile(t, a.path("memory/issue-5.json"), `{"records":[{"id":"o6"}],"dead":["o5"]}`+"\n")
	if err := os.Remove(a.path(ledger1)); err != nil {
		t.Fatal(err)
	}
	a.sync()
	opt := statebranch.RecoverOptions{Root: a.dir, Merge: sbt.UnionMerge, Valid: sbt.Valid, Live: sbt.Live,
		Locks: a.opts.Locks, NoSync: true, DryRun: true}
	res, err := statebranch.Recover(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range res.Recovered {
		got[r.Path] = r.IDs
	}
	if len(got) != 2 || !slices.Equal(got["memory/issue-5.json"], []string{"o7"}) || !slices.Equal(got[ledger1], []string{"CLR-1-001"}) {
		t.Fatalf("recovered %+v", res.Recovered)
	}
	if _, err := os.Stat(a.path(ledger1)); err == nil {
		t.Fatal("a dry run wrote")
	}
	opt.DryRun = false
	if _, err := statebranch.Recover(t.Context(), opt); err != nil {
		t.Fatal(err)
	}
	a.sync()
	if ids := sbt.IDs(t, remoteFile(t, remote, "memory/issue-5.json")); !slices.Equal(ids, []string{"o6", "o7"}) {
		t.Errorf("remote after recovery %v", ids)
	}
}

// A symlink planted at a state file is never read through (its target,
// outside the repository, would be pushed) nor replaced: it is reported.
func TestSymlinkedStateFileIsNeitherReadNorPushed(t *testing.T) {
	t.Parallel()
	remote, a, _ := syncedPair(t)
	secret := t.TempDir() + "/id_rsa"
	sbt.WriteFile(t, secret, sbt.Records("SECRET"))
	if err := os.Remove(a.path(ledger1)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, a.path(ledger1)); err != nil {
		t.Fatal(err)
	}
	res := a.sync()
	if len(res.Corrupt) != 1 || res.Corrupt[0].Side != "local" || res.Pushed {
		t.Fatalf("%+v", res)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, ledger1)); !slices.Equal(got, []string{"CLR-1-001"}) {
		t.Errorf("remote %v", got)
	}
	if fi, err := os.Lstat(a.path(ledger1)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
}

// A git fetch killed at a hook's deadline can leave the tracking ref's
// lock behind; every later fetch would then fail for good. The next sync
// removes it (no process holds it) and says so.
func TestStaleTrackingRefLockIsCleared(t *testing.T) {
	t.Parallel()
	_, a, _ := syncedPair(t)
	lockPath := a.dir + "/.git/refs/remotes/origin/agentx/state.lock"
	sbt.WriteFile(t, lockPath, "0000000000000000000000000000000000000000\n")
	old := time.Now().Add(-5 * time.Second)
	if err := os.Chtimes(lockPath, old, old); err != nil {
		t.Fatal(err)
	}
	a.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-002"))
	res := a.sync()
	if !res.Pushed || len(res.Notes) != 1 {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(lockPath); !os.IsNotExist(err) {
		t.Fatalf("lock still there: %v", err)
	}
}

// Recover merges only the versions that hold what the file lacks, newest
// first: a record edited twenty times and still there is never merged
// with its old versions (issue 38: 500 edits took 6 s of CPU, 2,000 over
// two minutes), and a lost record comes back as its newest version.
func TestRecoverMergesOnlyWhatIsLostNewestFirst(t *testing.T) {
	t.Parallel()
	_, a, _ := syncedPair(t)
	const p = "memory/issue-7.json"
	for i := 1; i <= 20; i++ {
		a.write(p, fmt.Sprintf(`{"records":[{"id":"o1","v":%d}]}`, i))
		a.sync()
	}
	a.write(p, `{"records":[{"id":"o1","v":20},{"id":"o2","v":1}]}`)
	a.sync()
	a.write(p, `{"records":[{"id":"o1","v":20},{"id":"o2","v":2}]}`)
	a.sync()
	// o2 lost locally without a tombstone (the old sync's doing).
	a.write(p, `{"records":[{"id":"o1","v":20}]}`)
	merges := 0
	opt := statebranch.RecoverOptions{Root: a.dir, Valid: sbt.Valid, Live: sbt.Live, Locks: a.opts.Locks, NoSync: true,
		Merge: func(path string, base, ours, theirs []byte) ([]byte, error) {
			if path == p {
				merges++
			}
			return sbt.UnionMerge(path, base, ours, theirs)
		}}
	res, err := statebranch.Recover(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Recovered) != 1 || !slices.Equal(res.Recovered[0].IDs, []string{"o2"}) {
		t.Fatalf("recovered %+v", res.Recovered)
	}
	if merges != 1 {
		t.Errorf("%d versions of %s merged, want 1 (the newest holding o2)", merges, p)
	}
	got := string(a.read(p))
	if !strings.Contains(got, `"v": 2`) || strings.Count(got, `"id"`) != 2 || !strings.Contains(got, `"v": 20`) {
		t.Errorf("after recovery:\n%s\nwant o1 at v 20 and o2 at its newest, v 2", got)
	}
}
