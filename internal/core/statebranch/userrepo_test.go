// What a sync must leave alone in the user's repository (HEAD, index,
// branches, stash, work tree: snapshot), and the sync base each linked
// worktree keeps of its own, a re-added worktree starting without the old
// one's.

package statebranch_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

func fileHash(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "absent"
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// snapshot is what a sync must never change in the user's repository.
func snapshot(t *testing.T, dir string) string {
	return strings.Join([]string{
		fileHash(t, filepath.Join(dir, ".git", "HEAD")),
		fileHash(t, filepath.Join(dir, ".git", "index")),
		fileHash(t, filepath.Join(dir, ".git", "FETCH_HEAD")),
		fileHash(t, filepath.Join(dir, ".git", "config")),
		sbt.Git(t, dir, "rev-parse", "HEAD"),
		sbt.Git(t, dir, "for-each-ref", "refs/heads", "refs/tags", "refs/stash"),
		sbt.Git(t, dir, "stash", "list"),
		sbt.Git(t, dir, "status", "--porcelain", "--untracked-files=all"),
		fileHash(t, filepath.Join(dir, "README.md")),
		fileHash(t, filepath.Join(dir, "staged.txt")),
		fileHash(t, filepath.Join(dir, "untracked.txt")),
		fileHash(t, filepath.Join(dir, ".agentx", "memory", "manifest.json")),
		fileHash(t, filepath.Join(dir, ".agentx", "state", "agent-status.json")),
	}, "\n")
}

func TestUserRepositoryUntouched(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a, b := newAgent(t, remote), newAgent(t, remote)
	// GitHub Mode: the state files are ignored on code branches.
	sbt.WriteFile(t, filepath.Join(a.dir, ".git", "info", "exclude"), ".agentx/\n")
	sbt.Git(t, a.dir, "checkout", "--quiet", "-b", "42-fix-login")
	sbt.WriteFile(t, filepath.Join(a.dir, "stashed.txt"), "x\n")
	sbt.Git(t, a.dir, "add", "stashed.txt")
	sbt.Git(t, a.dir, "stash", "--quiet")
	sbt.WriteFile(t, filepath.Join(a.dir, "staged.txt"), "staged\n")
	sbt.Git(t, a.dir, "add", "staged.txt")
	sbt.WriteFile(t, filepath.Join(a.dir, "README.md"), "edited, not staged\n")
	sbt.WriteFile(t, filepath.Join(a.dir, "untracked.txt"), "u\n")
	a.write("memory/manifest.json", "{}\n")
	a.write("state/agent-status.json", "{}\n")
	a.write(ledger1, sbt.Records("CLR-1-001"))
	b.write(ledger1, sbt.Records("CLR-1-002"))
	b.sync()

	before := snapshot(t, a.dir)
	a.sync()                                                     // merge, commit, push
	a.sync(func(o *statebranch.Options) { o.PullOnly = true })   // pull
	a.sync(func(o *statebranch.Options) { o.InitFrom = "HEAD" }) // seed from a commit
	if after := snapshot(t, a.dir); after != before {
		t.Errorf("user state changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if got := sbt.IDs(t, a.read(ledger1)); len(got) != 2 {
		t.Errorf("ledger %v", got)
	}
}

func TestLinkedWorktreeHasItsOwnBase(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	wtDir := filepath.Join(t.TempDir(), "wt")
	sbt.Git(t, a.dir, "worktree", "add", "--quiet", "-b", "7-other", wtDir)
	w := &agent{t: t, dir: wtDir, opts: a.opts}
	w.opts.Root = wtDir
	w.write("memory/issue-7.json", sbt.Records("from-worktree"))
	w.sync()
	firstBase := worktreeBases(t, a.dir)
	if len(firstBase) != 1 || !strings.HasPrefix(firstBase[0], "refs/agentx/worktrees/wt-") {
		t.Fatalf("worktree base refs %v", firstBase)
	}
	if _, err := sbt.TryGit(t.Context(), a.dir, "rev-parse", "--verify", "-q", statebranch.SyncedRef); err == nil {
		t.Fatal("the worktree's sync set the main work tree's base")
	}
	a.sync()
	if got := sbt.IDs(t, a.read("memory/issue-7.json")); !slices.Equal(got, []string{"from-worktree"}) {
		t.Errorf("main work tree: %v", got)
	}
	if got := sbt.Git(t, wtDir, "rev-parse", "--abbrev-ref", "HEAD"); got != "7-other" {
		t.Errorf("worktree HEAD %s", got)
	}
}

func worktreeBases(t *testing.T, dir string) []string {
	out := sbt.Git(t, dir, "for-each-ref", "--format=%(refname)", "refs/agentx/worktrees/")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// A worktree removed and added again under the same name must not inherit
// the old one's sync base: its first sync would read every file the old
// worktree had as removed here.
func TestReaddedWorktreeStartsWithoutTheOldBase(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a := newAgent(t, remote)
	a.write("memory/issue-7.json", sbt.Records("o1", "o2"))
	a.sync()
	wtDir := filepath.Join(t.TempDir(), "wt")
	sbt.Git(t, a.dir, "worktree", "add", "--quiet", "-b", "7-other", wtDir)
	w := &agent{t: t, dir: wtDir, opts: a.opts}
	w.opts.Root = wtDir
	w.sync()
	if got := sbt.IDs(t, w.read("memory/issue-7.json")); len(got) != 2 {
		t.Fatalf("worktree after its first sync: %v", got)
	}
	sbt.Git(t, a.dir, "worktree", "remove", "--force", wtDir)
	sbt.Git(t, a.dir, "worktree", "add", "--quiet", wtDir, "7-other")
	res := w.sync()
	if res.Pushed {
		t.Errorf("the re-added worktree pushed %+v", res)
	}
	if got := sbt.IDs(t, remoteFile(t, remote, "memory/issue-7.json")); len(got) != 2 {
		t.Errorf("remote after the re-added worktree synced: %v", got)
	}
	if got := worktreeBases(t, a.dir); len(got) != 2 {
		t.Errorf("base refs %v: want one per worktree incarnation", got)
	}
}
