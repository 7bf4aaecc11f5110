package gitcmd

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/process"
)

// The runner reports git's own complaint, and a cancelled context stops it
// before it starts.
func TestExec(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := Exec{Dir: dir}.Git(context.Background(), "--version")
	if err != nil || !strings.HasPrefix(out, "git version") {
		t.Fatalf("git --version = %q, %v", out, err)
	}
	_, err = Exec{Dir: dir}.Git(context.Background(), "rev-parse", "--git-dir")
	if err == nil || !strings.Contains(err.Error(), "git rev-parse --git-dir: ") || !strings.Contains(strings.ToLower(err.Error()), "not a git repository") {
		t.Fatalf("outside a repository: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Exec{Dir: dir}).Git(ctx, "--version"); err == nil {
		t.Fatal("a cancelled context still ran git")
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	if got := Lines("a\r\n\n  b \nc"); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("Lines = %q", got)
	}
}

// git runs with the environment the context carries (process.WithEnv),
// as an in-process command's git must: its identity here comes from it.
func TestExecTakesTheContextsEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ada From Context", "GIT_AUTHOR_EMAIL=ada@example.com"}
	ctx := process.WithEnv(context.Background(), env)
	out, err := Exec{Dir: dir}.Git(ctx, "var", "GIT_AUTHOR_IDENT")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "Ada From Context <ada@example.com>") {
		t.Fatalf("git var GIT_AUTHOR_IDENT = %q", out)
	}
}
