//go:build unix

package statesafety

import (
	"path/filepath"
	"testing"
)

// Partial (--filter=blob:none), treeless (--filter=tree:0) and shallow
// (--depth 1) clones, common in CI and large monorepos, are cloned after
// the team shared its state: their copy of the state branch lacks the
// blobs (and, treeless, the trees) the merge reads, or its history. Each
// syncs: it gets the team's state and the team gets its own.
func TestPartialTreelessAndShallowClonesSync(t *testing.T) {
	for _, c := range []struct{ name, flag string }{
		{"blobless", "--filter=blob:none"}, {"treeless", "--filter=tree:0"}, {"shallow", "--depth=1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newScenario(t)
			s.shared()
			// The remote serves filters, as GitHub does.
			if _, err := mustGit(s.w.remote, "config", "uploadpack.allowFilter", "true"); err != nil {
				t.Fatal(err)
			}
			// file:// so that git clones through the transport (a local
			// path would copy the objects and ignore the filter).
			if _, err := mustGit(s.w.dir, "clone", "-q", "--no-single-branch", c.flag, "file://"+s.w.remote, "p"); err != nil {
				t.Fatal(err)
			}
			s.w.trees["p"] = filepath.Join(s.w.dir, "p")
			s.request("p", "Which queue for the "+c.name+" clone's jobs?")
			s.remember("p", "The "+c.name+" clone's own decision")
			s.ok("p", "sync")
			s.sync("a", "p")
			s.expect("after the "+c.name+" clone's sync", "local p", "local a", "branch "+stateBranch)
		})
	}
}
