package hookcmd

import (
	"os"
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
	repo, run := docShell(t) // githubmode_doc_test.go
	if out := run(repo, m[1]); !strings.Contains(out, "created agentx/state") {
		t.Errorf("the README's sync did not create the state branch:\n%s", out)
	}
	if st := run(repo, "git status --porcelain"); st != "" {
		t.Errorf("after the README's GitHub Mode block, git status shows:\n%s", st)
	}
}
