//go:build unix

// The world the tests act on: a bare remote, three clones and a linked
// worktree in GitHub Mode, each with uncommitted work of the user's own;
// its template (built once, copied per test) and the changes the tests
// make to it (state_branch, junk committed to a branch).

package statesafety

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentx-dev/agentx/internal/testenv"
	"github.com/go-git/go-git/v5/plumbing"
)

// Names of the places a world has.
const (
	stateBranch = "agentx/state"
	altBranch   = "agentx/state-alt"
)

// treeNames are the work trees of a world: three clones and a linked
// worktree of the first.
var treeNames = []string{"a", "b", "c", "w"}

// world is one bare remote with three clones (a, b, c) of it in GitHub
// Mode, and a linked worktree w of a, each with uncommitted work of the
// user's own (a staged and an unstaged change, a stash, a branch).
type world struct {
	dir    string
	remote string
	trees  map[string]string // name -> work tree directory
	toml   string            // the committed .agentx/agentx.toml
	// commits is what each commit read so far holds (refHoldings).
	commits map[plumbing.Hash]*holdings
}

func (w *world) tree(name string) string { return w.trees[name] }

// repoOf is the clone whose repository holds tree name's refs.
func repoOf(name string) string {
	if name == "w" {
		return "a"
	}
	return name
}

var (
	templateOnce sync.Once
	templateDir  string
	templateErr  error
)

// newWorld copies the world template (built once) into a new directory
// of t's.
func newWorld(t testing.TB) *world {
	t.Helper()
	w, err := makeWorld(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// makeWorld copies the world template (built once) into dir; it is safe
// on any goroutine.
func makeWorld(dir string) (*world, error) {
	if m, ok := readPidMark(); ok {
		worldMarks.Store(dir, m)
	}
	templateOnce.Do(func() {
		templateDir = filepath.Join(scratch, "template")
		templateErr = buildTemplate(templateDir)
	})
	if templateErr != nil {
		return nil, fmt.Errorf("world template: %w", templateErr)
	}
	if err := copyWorld(templateDir, dir); err != nil {
		return nil, err
	}
	w := openWorld(dir)
	data, err := os.ReadFile(filepath.Join(w.tree("a"), ".agentx", "agentx.toml"))
	if err != nil {
		return nil, err
	}
	w.toml = string(data)
	return w, nil
}

// copyWorld copies the world at src to dst, a directory that does not
// exist or is empty.
func copyWorld(src, dst string) error {
	if err := testenv.CopyTree(src, dst); err != nil {
		return err
	}
	// The worktree's links are absolute paths (the only ones a world
	// holds): point them at the copy.
	for _, f := range []string{filepath.Join(dst, "w", ".git"), filepath.Join(dst, "a", ".git", "worktrees", "w", "gitdir")} {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(f, bytes.ReplaceAll(data, []byte(src), []byte(dst)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func openWorld(dir string) *world {
	w := &world{dir: dir, remote: filepath.Join(dir, "remote.git"), trees: map[string]string{}}
	for _, n := range treeNames {
		w.trees[n] = filepath.Join(dir, n)
	}
	return w
}

// buildTemplate makes the world every test starts from. The clones reach
// the remote by the relative URL ../remote.git, so that a copy works.
func buildTemplate(dir string) error {
	w := openWorld(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	a := w.tree("a")
	steps := []struct {
		dir  string
		args []string
	}{
		{dir, []string{"init", "-q", "--bare", "-b", "main", "remote.git"}},
		{dir, []string{"init", "-q", "-b", "main", "a"}},
	}
	for _, s := range steps {
		if _, err := mustGit(s.dir, s.args...); err != nil {
			return err
		}
	}
	for name, content := range map[string]string{"README.md": "code\n", "notes.txt": "notes\n"} {
		if err := os.WriteFile(filepath.Join(a, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	if res, err := hook(a, "init", "--mode", "github"); err != nil || res.code != 0 {
		return fmt.Errorf("agentx-hook init: %v %s", err, res)
	}
	for _, args := range [][]string{
		{"add", "README.md", "notes.txt", "AGENTS.md", ".agentx/agentx.toml", ".agentx/workflows", ".agentx/.gitignore"},
		{"commit", "-q", "-m", "agentx: GitHub Mode"},
		{"remote", "add", "origin", "../remote.git"},
		{"push", "-q", "-u", "origin", "main"},
	} {
		if _, err := mustGit(a, args...); err != nil {
			return err
		}
	}
	for _, n := range []string{"b", "c"} {
		if _, err := mustGit(dir, "clone", "-q", "remote.git", n); err != nil {
			return err
		}
		if _, err := mustGit(w.tree(n), "remote", "set-url", "origin", "../remote.git"); err != nil {
			return err
		}
	}
	if _, err := mustGit(a, "worktree", "add", "-q", "-b", "w", "../w"); err != nil {
		return err
	}
	// The user's own work, which no sync may touch.
	for _, n := range []string{"a", "b", "c"} {
		if err := userWork(w.tree(n), true); err != nil {
			return err
		}
	}
	return userWork(w.tree("w"), false)
}

// userWork leaves a branch, a stash, a staged and an unstaged change in
// the work tree dir.
func userWork(dir string, stash bool) error {
	appendTo := func(name, line string) error {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteString(line + "\n")
		return errors.Join(err, f.Close())
	}
	if stash {
		if _, err := mustGit(dir, "branch", "feature-"+filepath.Base(dir)); err != nil {
			return err
		}
		if err := appendTo("notes.txt", "stashed"); err != nil {
			return err
		}
		if _, err := mustGit(dir, "stash", "-q"); err != nil {
			return err
		}
	}
	if err := appendTo("notes.txt", "staged"); err != nil {
		return err
	}
	if _, err := mustGit(dir, "add", "notes.txt"); err != nil {
		return err
	}
	return appendTo("README.md", "unstaged")
}

// setStateBranch makes tree dir's settings those of the template with
// [github] state_branch = branch added ("" puts the template's back).
func (w *world) setStateBranch(dir, branch string) error {
	text := w.toml
	if branch != "" {
		text += "\n[github]\nstate_branch = \"" + branch + "\"\n"
	}
	return os.WriteFile(filepath.Join(dir, ".agentx", "agentx.toml"), []byte(text), 0o644)
}

// commitJunk commits content that does not parse over path p of the
// remote's branch b with plain git, as a person would from a scratch
// worktree: a temporary index on the remote itself makes the same commit
// without the checkout.
func (w *world) commitJunk(b, p string) error {
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(w.dir, "junk-index")}
	defer os.Remove(filepath.Join(w.dir, "junk-index"))
	tip, err := mustGit(w.remote, "rev-parse", "--verify", "refs/heads/"+b)
	if err != nil {
		return err
	}
	if _, err := gitEnvIn(w.remote, env, "read-tree", tip); err != nil {
		return err
	}
	blob, err := gitInput(w.remote, "not json {\n", "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	if _, err := gitEnvIn(w.remote, env, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p); err != nil {
		return err
	}
	tree, err := gitEnvIn(w.remote, env, "write-tree")
	if err != nil {
		return err
	}
	commit, err := gitInput(w.remote, "junk\n", "commit-tree", tree, "-p", tip)
	if err != nil {
		return err
	}
	_, err = mustGit(w.remote, "update-ref", "refs/heads/"+b, commit, tip)
	return err
}
