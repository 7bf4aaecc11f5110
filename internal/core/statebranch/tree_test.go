package statebranch_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
	"github.com/agentx-dev/agentx/internal/core/verify"
)

func TestOpenTreeReadsTheBranchWithoutACheckout(t *testing.T) {
	t.Parallel()
	sbt.Env(t)
	remote := sbt.Remote(t)
	a, b := newAgent(t, remote), newAgent(t, remote)
	a.write(ledger1, sbt.Records("CLR-1-001"))
	a.write("memory/archive/issue-1-archived.json", sbt.Records("obs-0"))
	a.appendTrail("clarify.request", 2)
	b.appendTrail("memory.add", 1)
	a.sync()
	b.sync()
	a.sync(func(o *statebranch.Options) { o.PullOnly = true })
	// A user's work in progress, which reading the tree must not touch.
	sbt.WriteFile(t, filepath.Join(a.dir, "README.md"), "changed\n")
	status := sbt.Git(t, a.dir, "status", "--porcelain")
	index, err := os.Stat(filepath.Join(a.dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	head := sbt.Git(t, a.dir, "rev-parse", "HEAD")

	tree, err := statebranch.OpenTree(a.dir, statebranch.TrackingRef("origin", "agentx/state"))
	if err != nil {
		t.Fatal(err)
	}
	if tree.Commit != sbt.Git(t, remote, "rev-parse", "agentx/state") {
		t.Errorf("commit %s", tree.Commit)
	}
	if err := fstest.TestFS(tree, ledger1, "memory/archive/issue-1-archived.json",
		statebranch.TrailDir(a.writerID())+"/audit.jsonl", statebranch.TrailDir(b.writerID())+"/audit.jsonl"); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.RunFS(tree, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The stand-in ledger is not a real one: only the trails are judged.
	if rep.Counts.Trails != 2 || rep.Counts.AuditLines != 3 {
		t.Errorf("counts %+v problems %+v", rep.Counts, rep.Problems)
	}
	for _, p := range rep.Problems {
		if p.Path != ledger1 && p.Path != "memory/archive/issue-1-archived.json" {
			t.Errorf("problem %+v", p)
		}
	}
	// Before git status, which may refresh the index itself.
	if fi, _ := os.Stat(filepath.Join(a.dir, ".git", "index")); !fi.ModTime().Equal(index.ModTime()) || fi.Size() != index.Size() {
		t.Errorf("the index changed")
	}
	if got := sbt.Git(t, a.dir, "status", "--porcelain"); got != status {
		t.Errorf("status %q -> %q", status, got)
	}
	if got := sbt.Git(t, a.dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved")
	}
	if _, err := statebranch.OpenTree(a.dir, "refs/remotes/origin/nope"); err == nil {
		t.Errorf("a missing ref opened")
	}
}
