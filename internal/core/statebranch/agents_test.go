// The agents the sync tests drive (one clone each, standing for one
// machine), the transports that count or lose push races, and the synced
// pair every test that needs one copies from a template made once per
// test binary.

package statebranch_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

// agent is one clone standing for one machine.
type agent struct {
	t    *testing.T
	dir  string
	opts statebranch.Options
}

func newAgent(t *testing.T, remote string) *agent {
	return agentAt(t, sbt.Clone(t, remote))
}

// agentAt is the agent of the clone at dir.
func agentAt(t *testing.T, dir string) *agent {
	return &agent{t: t, dir: dir, opts: statebranch.Options{
		Root: dir, Merge: sbt.UnionMerge, Valid: sbt.Valid, Lost: sbt.Lost, NoSync: true,
		Locks: lock.New(lock.Options{}),
		Now:   func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}}
}

func (a *agent) path(rel string) string {
	return filepath.Join(a.dir, ".agentx", filepath.FromSlash(rel))
}

func (a *agent) write(rel, content string) { sbt.WriteFile(a.t, a.path(rel), content) }

func (a *agent) read(rel string) []byte {
	data, err := os.ReadFile(a.path(rel))
	if err != nil {
		a.t.Fatal(err)
	}
	return data
}

func (a *agent) sync(mod ...func(*statebranch.Options)) *statebranch.Result {
	a.t.Helper()
	o := a.opts
	for _, m := range mod {
		m(&o)
	}
	res, err := statebranch.Sync(context.Background(), o)
	if err != nil {
		a.t.Fatalf("sync in %s: %v", a.dir, err)
	}
	return res
}

const ledger1 = "state/clarifications/issue-1.json"

// remoteFile reads a file of the state branch in the bare remote.
func remoteFile(t *testing.T, remote, rel string) []byte {
	t.Helper()
	return []byte(sbt.Git(t, remote, "show", "refs/heads/agentx/state:"+rel) + "\n")
}

// countingTransport counts transfers and can run something before a push.
type countingTransport struct {
	statebranch.GitCLI
	fetches, pushes int
	beforePush      func()
}

func (c *countingTransport) Fetch(ctx context.Context, remote, branch, tracking string) (bool, error) {
	c.fetches++
	return c.GitCLI.Fetch(ctx, remote, branch, tracking)
}

func (c *countingTransport) Push(ctx context.Context, remote, branch, commit string) error {
	c.pushes++
	if c.beforePush != nil {
		f := c.beforePush
		c.beforePush = nil
		f()
	}
	return c.GitCLI.Push(ctx, remote, branch, commit)
}

// syncedPair is two agents that both hold ledger 1 with CLR-1-001, synced.
// It is a copy of a pair made so once per test binary (pairTemplate): its
// two syncs start about 15 git processes, and 13 tests start from it
// (issue 37).
func syncedPair(t *testing.T) (remote string, a, b *agent) {
	sbt.Env(t)
	tm := pairTemplate(t)
	dir := t.TempDir()
	remote = filepath.Join(dir, "remote.git")
	for _, d := range []string{"remote.git", "a", "b"} {
		if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join(tm, d))); err != nil {
			t.Fatalf("copy the synced pair: %v", err)
		}
	}
	for _, d := range []string{"a", "b"} {
		pointOrigin(t, filepath.Join(dir, d), filepath.Join(tm, "remote.git"), remote)
	}
	return remote, agentAt(t, filepath.Join(dir, "a")), agentAt(t, filepath.Join(dir, "b"))
}

// pointOrigin points the origin of the copied clone at dir from the
// template's remote at the copy's.
func pointOrigin(t *testing.T, dir, from, to string) {
	t.Helper()
	cfg := filepath.Join(dir, ".git", "config")
	data, err := os.ReadFile(cfg)
	line := []byte("url = " + from + "\n")
	if err != nil || !bytes.Contains(data, line) {
		t.Fatalf("%s has no %q: %v", cfg, line, err)
	}
	if err := os.WriteFile(cfg, bytes.Replace(data, line, []byte("url = "+to+"\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

var pairOnce = &template{what: "the synced pair"}

// pairTemplate makes the synced pair once, by syncs as its doc says, in
// a directory of the test binary's (remote.git, a and b), and returns it.
func pairTemplate(t *testing.T) string {
	return pairOnce.dir(t, func(base string) {
		remote := filepath.Join(base, "remote.git")
		if err := os.CopyFS(remote, os.DirFS(sbt.Remote(t))); err != nil {
			t.Fatal(err)
		}
		var agents []*agent
		for _, d := range []string{"a", "b"} {
			if err := os.CopyFS(filepath.Join(base, d), os.DirFS(sbt.Clone(t, remote))); err != nil {
				t.Fatal(err)
			}
			agents = append(agents, agentAt(t, filepath.Join(base, d)))
		}
		agents[0].write(ledger1, sbt.Records("CLR-1-001"))
		agents[0].sync()
		agents[1].sync()
	})
}

// template is a directory made once per test binary, by the first test
// that asks, and copied by every test that starts from it.
type template struct {
	what string
	once sync.Once
	base string
}

// dir returns the template's directory, made by build in a new directory
// of the test binary's (removed with its temporary directory, testenv.Main)
// the first time; a test after a failed build fails too.
func (tp *template) dir(t *testing.T, build func(base string)) string {
	t.Helper()
	tp.once.Do(func() {
		base, err := os.MkdirTemp("", "sb-template-")
		if err != nil {
			t.Fatal(err)
		}
		build(base)
		tp.base = base
	})
	if tp.base == "" {
		t.Fatalf("%s could not be made (see the first test that asked)", tp.what)
	}
	return tp.base
}

// alwaysRejected loses every push race.
type alwaysRejected struct {
	statebranch.GitCLI
	pushes int
}

func (r *alwaysRejected) Push(context.Context, string, string, string) error {
	r.pushes++
	return statebranch.ErrNonFastForward
}
