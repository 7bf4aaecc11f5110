package gitcmd

import (
	"context"
	"reflect"
	"strings"
	"testing"
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
