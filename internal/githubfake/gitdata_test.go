package githubfake

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The fake's object ids must be git's own, so a test can hold the fake's
// state branch against a real repository's: commit the same files with
// real git and compare the root tree ids.
func TestGitDataTreeIDsMatchRealGit(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"state/clarifications/issue-42.json":    []byte("{\"issueNumber\":42}\n"),
		"state/clarifications/issue-7.json":     []byte("{}\n"),
		"memory/issue-42.json":                  []byte("[]\n"),
		"memory/archive/issue-42-archived.json": []byte("x"),
		"memory-notes":                          []byte("a file whose name sorts against a directory"),
	}
	s := New()
	defer s.Close()
	s.SetBranchFiles("agentx/state", files, "seed")
	s.mu.Lock()
	g := s.git()
	tree := g.commits[g.refs["heads/agentx/state"]].Tree
	s.mu.Unlock()

	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, c, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	run("add", "-A")
	if want := run("write-tree"); tree != want {
		t.Fatalf("fake tree %s, git write-tree %s", tree, want)
	}
}
