package hookcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeGitHubModeBlock runs the README's "## GitHub Mode" shell block
// as written in a fresh clone of a bare remote: the state branch is made,
// and nothing init wrote is left uncommitted (the block once left
// AGENTS.md out of its git add). Issue 37.
func TestReadmeGitHubModeBlock(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	start := strings.Index(section, "\n## GitHub Mode\n")
	if start < 0 {
		t.Fatal(`README.md has no "## GitHub Mode"`)
	}
	section = section[start+1:]
	m := regexp.MustCompile("(?s)```sh\n(.*?)\n```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal(`README.md's "## GitHub Mode" has no shell block`)
	}
	dir := t.TempDir()
	env := append(firstSessionEnv(dir), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "NO_COLOR=1")
	run := func(where, script string) string {
		t.Helper()
		cmd := exec.Command("sh", "-ec", script)
		cmd.Dir, cmd.Env = where, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s\nin %s: %v\n%s", script, where, err, out)
		}
		return string(out)
	}
	run(dir, "git init -q --bare -b main remote.git && git clone -q remote.git repo 2>/dev/null && git -C repo commit -q --allow-empty -m start && git -C repo push -q origin HEAD")
	repo := filepath.Join(dir, "repo")
	if out := run(repo, m[1]); !strings.Contains(out, "created agentx/state") {
		t.Errorf("the README's sync did not create the state branch:\n%s", out)
	}
	if st := run(repo, "git status --porcelain"); st != "" {
		t.Errorf("after the README's GitHub Mode block, git status shows:\n%s", st)
	}
}
