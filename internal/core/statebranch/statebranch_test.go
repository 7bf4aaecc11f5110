// The sync of the state branch between agents: which paths are state, the
// first sync (with state or none), two agents' changes landing on both
// sides, push races, a missing file against a tombstone, a file that does
// not parse, seeding from committed ledgers, push-only and pull-only syncs,
// errors, and the files the local side does not manage. The agents and
// templates the tests start from are in agents_test.go.

package statebranch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

func TestIsStatePath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"state/clarifications/issue-42.json":       true,
		"memory/issue-7.json":                      true,
		"memory/archive/issue-7-archived.json":     true,
		"state/clarifications/issue-0.json":        false,
		"state/clarifications/issue-x.json":        false,
		"state/clarifications/issue-4.json.lock":   false,
		"state/clarifications/.issue-4.json.tmp-1": false,
		"state/agent-status.json":                  false,
		"state/events.jsonl":                       false,
		"memory/manifest.json":                     false,
		"memory/search.idx":                        false,
		"memory/pending/issue-1-123":               false,
		"memory/issue-01.json":                     false,
		"agentx.toml":                              false,
		"workflows/feature.toml":                   false,
		"memory/archive/.x.json":                   false,
		"memory/archive/sub/x.json":                false,
	} {
		if got := statebranch.IsStatePath(p); got != want {
			t.Errorf("IsStatePath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestFirstSyncCreatesOrphanBranchOfStateFilesOnly(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.write(ledger1, sbt.Records("CLR-1-001"))
	a.write("memory/issue-1.json", sbt.Records("obs-1"))
	a.write("memory/archive/issue-1-archived.json", sbt.Records("obs-0"))
	for _, local := range []string{"memory/manifest.json", "memory/search.idx", "state/agent-status.json",
		"state/events.jsonl", "state/clarifications/.issue-1.json.tmp-123", "agentx.toml", "memory/pending/issue-1-x"} {
		a.write(local, "{}\n")
	}
	res := a.sync()
	if !res.Created || !res.Pushed || res.Commit == "" || res.RemoteExists {
		t.Fatalf("first sync: %+v", res)
	}
	if parents := sbt.Git(t, remote, "rev-list", "--parents", "-n1", "agentx/state"); strings.Contains(parents, " ") {
		t.Errorf("first commit has parents: %s", parents)
	}
	files := strings.Fields(sbt.Git(t, remote, "ls-tree", "-r", "--name-only", "agentx/state"))
	want := []string{"memory/archive/issue-1-archived.json", "memory/issue-1.json", ledger1}
	if !slices.Equal(files, want) {
		t.Errorf("state branch files = %v, want %v", files, want)
	}
	if got := sbt.Git(t, a.dir, "rev-parse", statebranch.SyncedRef); got != res.Commit {
		t.Errorf("synced ref %s, want %s", got, res.Commit)
	}
	// git fsck finds the objects go-git wrote well formed.
	sbt.Git(t, a.dir, "fsck", "--no-progress", "--strict")
}

func TestTwoAgentsLandBothSides(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a, b := newAgent(t, remote), newAgent(t, remote)
	a.write(ledger1, sbt.Records("CLR-1-001"))
	b.write(ledger1, sbt.Records("CLR-1-002"))
	b.write("memory/issue-2.json", sbt.Records("obs-b"))
	a.sync()
	rb := b.sync()
	if len(rb.Merged) != 1 || rb.Merged[0] != ledger1 || !rb.Pushed {
		t.Fatalf("b's sync: %+v", rb)
	}
	ra := a.sync()
	if ra.Commit != "" || ra.Pushed || len(ra.Written) != 2 {
		t.Fatalf("a's second sync should only pull: %+v", ra)
	}
	for _, ag := range []*agent{a, b} {
		if got := sbt.IDs(t, ag.read(ledger1)); !slices.Equal(got, []string{"CLR-1-001", "CLR-1-002"}) {
			t.Errorf("%s ledger ids %v", ag.dir, got)
		}
	}
	if got := sbt.IDs(t, a.read("memory/issue-2.json")); !slices.Equal(got, []string{"obs-b"}) {
		t.Errorf("a memory %v", got)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, ledger1)); len(got) != 2 {
		t.Errorf("remote ledger ids %v", got)
	}
}

func TestNothingChangedFetchesOnceAndNeitherCommitsNorPushes(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.write(ledger1, sbt.Records("CLR-1-001"))
	a.sync()
	tip := sbt.Git(t, remote, "rev-parse", "agentx/state")
	objects := sbt.Git(t, a.dir, "count-objects")
	tr := &countingTransport{GitCLI: statebranch.GitCLI{Dir: a.dir}}
	res := a.sync(func(o *statebranch.Options) { o.Transport = tr })
	if tr.fetches != 1 || tr.pushes != 0 || res.Commit != "" || res.Pushed || len(res.Written) != 0 {
		t.Fatalf("fetches %d pushes %d result %+v", tr.fetches, tr.pushes, res)
	}
	if got := sbt.Git(t, remote, "rev-parse", "agentx/state"); got != tip {
		t.Errorf("remote moved: %s -> %s", tip, got)
	}
	if got := sbt.Git(t, a.dir, "count-objects"); got != objects {
		t.Errorf("objects written: %s -> %s", objects, got)
	}
}

func TestPushRaceIsMergedAgain(t *testing.T) {
	t.Parallel()
	remote, a, b := syncedPair(t)
	a.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-002"))
	b.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-003"))
	tr := &countingTransport{GitCLI: statebranch.GitCLI{Dir: a.dir}, beforePush: func() { b.sync() }}
	res := a.sync(func(o *statebranch.Options) { o.Transport = tr })
	if res.Retries != 1 || !res.Pushed || tr.fetches != 2 || tr.pushes != 2 {
		t.Fatalf("retries %d fetches %d pushes %d: %+v", res.Retries, tr.fetches, tr.pushes, res)
	}
	want := []string{"CLR-1-001", "CLR-1-002", "CLR-1-003"}
	if got := sbt.IDs(t, remoteFile(t, remote, ledger1)); !slices.Equal(got, want) {
		t.Errorf("remote %v, want %v", got, want)
	}
	b.sync()
	if got := sbt.IDs(t, b.read(ledger1)); !slices.Equal(got, want) {
		t.Errorf("b %v, want %v", got, want)
	}
	// History is linear: each sync one commit on top of the last.
	if n := sbt.Git(t, remote, "rev-list", "--count", "--merges", "agentx/state"); n != "0" {
		t.Errorf("%s merge commits", n)
	}
}

func TestMissingFileIsNotADeletionATombstoneIs(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a, b := newAgent(t, remote), newAgent(t, remote)
	a.write("memory/issue-3.json", sbt.Records("o1"))
	a.write("memory/issue-4.json", sbt.Records("o2"))
	a.write("memory/issue-5.json", sbt.Records("o5", "o6"))
	a.sync()
	b.sync()
	// a loses issue 3 (git clean), removes o5 on purpose (a tombstone),
	// b changes issue 4: nothing is deleted but o5.
	if err := os.Remove(a.path("memory/issue-3.json")); err != nil {
		t.Fatal(err)
	}
	a.write("memory/issue-5.json", `{"records":[{"id":"o6"}],"dead":["o5"]}`)
	b.write("memory/issue-4.json", sbt.Records("o2", "o3"))
	res := a.sync()
	if !slices.Equal(res.Restored, []string{"memory/issue-3.json"}) {
		t.Errorf("restored %v", res.Restored)
	}
	b.sync()
	a.sync()
	for _, ag := range []*agent{a, b} {
		if got := sbt.IDs(t, ag.read("memory/issue-3.json")); !slices.Equal(got, []string{"o1"}) {
			t.Errorf("%s: issue-3 %v", ag.dir, got)
		}
		if got := sbt.IDs(t, ag.read("memory/issue-4.json")); len(got) != 2 {
			t.Errorf("%s: issue-4 %v", ag.dir, got)
		}
		if got := sbt.IDs(t, ag.read("memory/issue-5.json")); !slices.Equal(got, []string{"o6"}) {
			t.Errorf("%s: issue-5 %v", ag.dir, got)
		}
	}
	if got := sbt.IDs(t, remoteFile(t, remote, "memory/issue-3.json")); !slices.Equal(got, []string{"o1"}) {
		t.Errorf("remote issue-3 %v", got)
	}
}

func TestUnmergeableFileStaysLocalAndIsNotPushed(t *testing.T) {
	t.Parallel()
	remote, a, b := syncedPair(t)
	a.write(ledger1, "{ not json")
	b.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-002"))
	b.sync()
	for i := range 2 { // reported on every sync until resolved, never pushed
		res := a.sync()
		if len(res.Corrupt) != 1 || res.Corrupt[0].Path != ledger1 || res.Corrupt[0].Side != "local" || res.Pushed {
			t.Fatalf("sync %d: %+v", i, res)
		}
		if got := string(a.read(ledger1)); got != "{ not json" {
			t.Fatalf("local file changed: %q", got)
		}
		if got := sbt.IDs(t, remoteFile(t, remote, ledger1)); len(got) != 2 {
			t.Fatalf("remote %v", got)
		}
	}
	// Repaired by hand: the next sync merges it.
	a.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-009"))
	res := a.sync()
	if len(res.Corrupt) != 0 || !res.Pushed {
		t.Fatalf("after repair: %+v", res)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, ledger1)); len(got) != 3 {
		t.Errorf("remote %v", got)
	}
}

func TestInitFromSeedsFromCommittedLedgers(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	// Today's GitHub Mode: the ledgers are committed on main.
	a.write("state/clarifications/issue-5.json", sbt.Records("CLR-5-001"))
	a.write("memory/issue-5.json", sbt.Records("obs-5"))
	a.write("memory/manifest.json", "{}\n")
	sbt.Git(t, a.dir, "add", ".agentx")
	sbt.Git(t, a.dir, "commit", "--quiet", "-m", "ledgers on main")
	sbt.Git(t, a.dir, "push", "--quiet", "origin", "main")
	// Locally, one ledger gained a record and the memory file was lost.
	a.write("state/clarifications/issue-5.json", sbt.Records("CLR-5-002"))
	if err := os.Remove(a.path("memory/issue-5.json")); err != nil {
		t.Fatal(err)
	}
	res := a.sync(func(o *statebranch.Options) { o.InitFrom = "main" })
	if !slices.Equal(res.Seeded, []string{"memory/issue-5.json", "state/clarifications/issue-5.json"}) || !res.Created {
		t.Fatalf("seeded: %+v", res)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, "state/clarifications/issue-5.json")); !slices.Equal(got, []string{"CLR-5-001", "CLR-5-002"}) {
		t.Errorf("remote ledger %v", got)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, "memory/issue-5.json")); !slices.Equal(got, []string{"obs-5"}) {
		t.Errorf("remote memory %v", got)
	}
	if _, err := sbt.TryGit(t.Context(), remote, "cat-file", "-e", "agentx/state:memory/manifest.json"); err == nil {
		t.Error("manifest pushed")
	}
	// A second agent that never had the files gets them from the branch.
	b := newAgent(t, remote)
	b.sync()
	if got := sbt.IDs(t, b.read("state/clarifications/issue-5.json")); len(got) != 2 {
		t.Errorf("b ledger %v", got)
	}
	// Unknown revisions are a clear error.
	_, err := statebranch.Sync(context.Background(), func() statebranch.Options {
		o := a.opts
		o.InitFrom = "no-such-branch"
		return o
	}())
	if err == nil || !strings.Contains(err.Error(), "no-such-branch") {
		t.Errorf("unknown rev: %v", err)
	}
}

func TestPushOnlyDoesNotFetchFirst(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.write(ledger1, sbt.Records("CLR-1-001"))
	tr := &countingTransport{GitCLI: statebranch.GitCLI{Dir: a.dir}}
	res := a.sync(func(o *statebranch.Options) { o.PushOnly, o.Transport = true, tr })
	if tr.fetches != 0 || tr.pushes != 1 || !res.Pushed {
		t.Fatalf("fetches %d pushes %d: %+v", tr.fetches, tr.pushes, res)
	}
}

func TestPullOnlyCommitsNothing(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a, b := newAgent(t, remote), newAgent(t, remote)
	b.write(ledger1, sbt.Records("CLR-1-002"))
	b.sync()
	a.write("memory/issue-9.json", sbt.Records("mine"))
	tr := &countingTransport{GitCLI: statebranch.GitCLI{Dir: a.dir}}
	res := a.sync(func(o *statebranch.Options) { o.PullOnly, o.Transport = true, tr })
	if tr.pushes != 0 || res.Commit != "" || len(res.Written) != 1 {
		t.Fatalf("pushes %d: %+v", tr.pushes, res)
	}
	// The local change is pushed by the next full sync.
	res = a.sync()
	if !res.Pushed {
		t.Fatalf("%+v", res)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, "memory/issue-9.json")); len(got) != 1 {
		t.Errorf("remote %v", got)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	dir := t.TempDir()
	_, err := statebranch.Sync(context.Background(), statebranch.Options{Root: dir, Merge: sbt.UnionMerge, Valid: sbt.Valid, Lost: sbt.Lost, Locks: lock.New(lock.Options{})})
	if !errors.Is(err, gitstore.ErrNotRepository) {
		t.Errorf("not a repo: %v", err)
	}
	sbt.Git(t, dir, "init", "--quiet")
	_, err = statebranch.Sync(context.Background(), statebranch.Options{Root: dir, Merge: sbt.UnionMerge, Valid: sbt.Valid, Lost: sbt.Lost, Locks: lock.New(lock.Options{})})
	if !errors.Is(err, statebranch.ErrTransport) || !strings.Contains(err.Error(), "origin") {
		t.Errorf("no remote: %v", err)
	}
}

func TestLosingEveryRaceGivesUpAfterTheRetries(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.write(ledger1, sbt.Records("CLR-1-001"))
	tr := &alwaysRejected{GitCLI: statebranch.GitCLI{Dir: a.dir}}
	o := a.opts
	o.Transport, o.Retries = tr, 2
	res, err := statebranch.Sync(context.Background(), o)
	if !errors.Is(err, statebranch.ErrNonFastForward) || !strings.Contains(err.Error(), "lost 3 races") {
		t.Fatalf("err %v", err)
	}
	if tr.pushes != 3 || res.Retries != 2 {
		t.Errorf("pushes %d retries %d", tr.pushes, res.Retries)
	}
}

// The action keeps its sync state on the state branch (sync/state.json,
// not a state path): a local sync neither writes it to disk nor removes
// it from the branch when it commits.
func TestFilesTheLocalSideDoesNotManageStayOnTheBranch(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.write(ledger1, sbt.Records("CLR-1-001"))
	a.sync()
	action := sbt.Clone(t, remote)
	sbt.Git(t, action, "checkout", "-q", "agentx/state")
	sbt.WriteFile(t, filepath.Join(action, "sync", "state.json"), "{\"schema_version\":1}\n")
	sbt.Git(t, action, "add", "sync/state.json")
	sbt.Git(t, action, "commit", "-q", "-m", "agentx: record GitHub sync state")
	sbt.Git(t, action, "push", "-q", "origin", "agentx/state")

	a.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-002"))
	if res := a.sync(); !res.Pushed {
		t.Fatalf("sync did not push: %+v", res)
	}
	if got := string(remoteFile(t, remote, "sync/state.json")); got != "{\"schema_version\":1}\n" {
		t.Errorf("sync/state.json on the branch = %q", got)
	}
	if _, err := os.Stat(a.path("sync/state.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sync/state.json written locally (%v)", err)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, ledger1)); len(got) != 2 {
		t.Errorf("remote ledger %v", got)
	}
}

// A fresh `init --mode github` has no state yet: its first sync still
// creates the branch (empty), as README and docs/github-mode.md promise, so
// `git fetch origin agentx/state` works and doctor's fix (sync) does what
// it says. It once answered "nothing to push" and left no branch (issue 37).
func TestFirstSyncWithNoStateCreatesTheBranch(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	res := a.sync()
	if !res.Created || !res.Pushed || res.Commit == "" || res.RemoteExists {
		t.Fatalf("first sync with no state: %+v", res)
	}
	if got := sbt.Git(t, remote, "rev-parse", "agentx/state"); got != res.Commit {
		t.Errorf("remote agentx/state at %q, want %s", got, res.Commit)
	}
	if files := sbt.Git(t, remote, "ls-tree", "-r", "--name-only", "agentx/state"); files != "" {
		t.Errorf("the empty state's branch holds %q", files)
	}
	// Once there, a sync with nothing new pushes nothing; a pull-only
	// sync never creates it.
	tr := &countingTransport{GitCLI: statebranch.GitCLI{Dir: a.dir}}
	if res := a.sync(func(o *statebranch.Options) { o.Transport = tr }); res.Pushed || tr.pushes != 0 {
		t.Errorf("second sync: pushes %d: %+v", tr.pushes, res)
	}
	remote2 := sbt.Remote(t)
	b := newAgent(t, remote2)
	if res := b.sync(func(o *statebranch.Options) { o.PullOnly = true }); res.Pushed {
		t.Errorf("a pull-only sync pushed: %+v", res)
	}
	sbt.Git(t, a.dir, "fsck", "--no-progress", "--strict")
}

// A push killed on the remote's side (a crash of the machine serving a
// bare repository by path or ssh) leaves the branch's ref lock there, and
// every later push is rejected with "cannot lock ref": found by
// internal/e2e/crashpoints. Retrying is right (a push landing at that
// instant says the same), but the sync that gives up names the lock file
// and what to do, instead of telling the user to sync again, which can
// never succeed while the lock stays.
func TestStaleRemoteLockIsNamed(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.write(ledger1, sbt.Records("CLR-1-001"))
	a.sync()
	a.write(ledger1, sbt.Records("CLR-1-001", "CLR-1-002"))
	lockFile := filepath.Join(remote, "refs", "heads", "agentx", "state.lock")
	if err := os.WriteFile(lockFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := a.opts
	o.Retries = 1
	_, err := statebranch.Sync(context.Background(), o)
	var e *errcode.Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "state.lock") || !strings.Contains(e.Hint, "remove") {
		t.Fatalf("a stale lock on the remote: %v (hint %q), want the lock named and its removal advised", err, e.Hint)
	}
	if err := os.Remove(lockFile); err != nil {
		t.Fatal(err)
	}
	if res := a.sync(); !res.Pushed {
		t.Errorf("after the lock's removal: %+v", res)
	}
}
