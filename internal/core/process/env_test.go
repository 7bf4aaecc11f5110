package process

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestEnvFollowsTheContext(t *testing.T) {
	t.Parallel()
	if env := Env(context.Background()); env != nil {
		t.Fatalf("no environment given: got %q, want nil (inherit the process's)", env)
	}
	given := []string{"HOME=/somewhere", "GIT_AUTHOR_NAME=Ada"}
	ctx := WithEnv(context.Background(), given)
	got := Env(ctx)
	if !slices.Equal(got, given) {
		t.Fatalf("Env = %q, want %q", got, given)
	}
	got[0] = "HOME=/elsewhere" // a caller's append or edit never reaches the context's copy
	if Env(ctx)[0] != "HOME=/somewhere" {
		t.Fatal("Env handed out the context's own slice")
	}
}

// A child started with Env(ctx) sees the context's environment, not the
// process's.
func TestChildSeesTheContextsEnvironment(t *testing.T) {
	t.Parallel()
	ctx := WithEnv(context.Background(), []string{"AGENTX_ENV_PROBE=from-the-context", "PATH=/usr/bin:/bin"})
	cmd := exec.CommandContext(ctx, "sh", "-c", `echo "$AGENTX_ENV_PROBE"`)
	cmd.Env = Env(ctx)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != "from-the-context" {
		t.Fatalf("child saw %q", out)
	}
}
