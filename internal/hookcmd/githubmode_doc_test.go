package hookcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGitHubModeDocFromZero follows docs/github-mode.md's "Setup from zero
// in a new repository" as a user would, against a bare remote: the shell
// blocks of its steps 1 and 4 run as written (the agentx checkout's path
// put in for path/to/agentx). A fresh repository's first sync once pushed
// nothing, and step 4's `git fetch origin agentx/state` failed (issue 37).
func TestGitHubModeDocFromZero(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "github-mode.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	start := strings.Index(section, "## Setup from zero in a new repository")
	if start < 0 {
		t.Fatal(`docs/github-mode.md has no "## Setup from zero in a new repository"`)
	}
	section = section[start+3:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)\n *```").FindAllStringSubmatch(section, -1) {
		var lines []string
		for _, l := range strings.Split(m[1], "\n") {
			lines = append(lines, strings.TrimSpace(l))
		}
		blocks = append(blocks, strings.Join(lines, "\n"))
	}
	if len(blocks) != 2 {
		t.Fatalf("want the shell blocks of steps 1 and 4, found %d: update this test with the doc", len(blocks))
	}
	checkout, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}

	repo, run := docShell(t)

	// Step 1: init, commit the settings, push, and the first sync, which
	// creates the state branch with no state yet; nothing of agentx's is
	// left untracked.
	if out := run(repo, blocks[0]); !strings.Contains(out, "created agentx/state") {
		t.Errorf("step 1's sync did not create the branch:\n%s", out)
	}
	if st := run(repo, "git status --porcelain"); st != "" {
		t.Errorf("after step 1, git status shows:\n%s", st)
	}
	// Step 4, as written.
	run(repo, strings.ReplaceAll(blocks[1], "path/to/agentx", checkout))
	files := run(repo, "git -C ../remote.git ls-tree -r --name-only agentx/state")
	if !strings.Contains(files, ".github/workflows/agentx-sync.yml") {
		t.Errorf("the state branch after step 4 holds:\n%s", files)
	}
	// Syncs keep the workflow file, and doctor is content.
	run(repo, "agentx-hook clarify request --issue 7 --from engineer --to architect --topic api --question 'REST or gRPC?' --non-blocking && agentx-hook sync")
	files = run(repo, "git -C ../remote.git ls-tree -r --name-only agentx/state")
	for _, f := range []string{".github/workflows/agentx-sync.yml", "state/clarifications/issue-7.json"} {
		if !strings.Contains(files, f) {
			t.Errorf("the state branch after a sync lacks %s:\n%s", f, files)
		}
	}
	if out := run(repo, "agentx-hook doctor || true"); !regexp.MustCompile(`(?m)^ok +state-branch `).MatchString(out) {
		t.Errorf("doctor after the setup:\n%s", out)
	}
	if st := run(repo, "git status --porcelain"); st != "" {
		t.Errorf("after the setup, git status shows:\n%s", st)
	}
}

// docShell is what the docs' GitHub Mode blocks run in: a clone of a bare
// origin holding one commit, and a runner of shell scripts with a first
// session's environment that fails the test when a script fails.
func docShell(t *testing.T) (repo string, run func(where, script string) string) {
	t.Helper()
	dir := t.TempDir()
	env := append(firstSessionEnv(dir), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "NO_COLOR=1")
	run = func(where, script string) string {
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
	return filepath.Join(dir, "repo"), run
}
