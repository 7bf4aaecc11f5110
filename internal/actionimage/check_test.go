package actionimage

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/actioncmd"
	"github.com/agentx-dev/agentx/internal/core/clock"
)

// inProcess is an Engine that runs agentx-action's code in this process,
// with the container's paths mapped back to the mounts' host directories:
// the check's own logic (the runner's environment, files, payloads and
// verifications) is tested here without a Docker engine; CI runs the same
// check against the real image (scripts/ci/action.sh).
type inProcess struct{ runs []Container }

func (e *inProcess) Run(ctx context.Context, c Container) (Result, error) {
	e.runs = append(e.runs, c)
	env := map[string]string{}
	for k, v := range c.Env {
		if p, ok := mapPath(c.Mounts, v); ok {
			v = p
		}
		env[k] = v
	}
	cwd, _ := mapPath(c.Mounts, c.Workdir)
	var stdout, stderr bytes.Buffer
	app := &actioncmd.App{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }, Cwd: cwd, Clock: clock.Real{}}
	code := app.Run(ctx, c.Args)
	return Result{Code: code, Stdout: stdout.String(), Stderr: stderr.String()}, nil
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func TestCheckRunsTheFourCommandsAsTheRunnerDoes(t *testing.T) {
	e := &inProcess{}
	var out bytes.Buffer
	if err := Check(context.Background(), Options{Engine: e, RepoRoot: repoRoot(), Out: &out}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, cmd := range []string{"sync", "ingest", "monitor", "digest"} {
		if !strings.Contains(out.String(), "ok   "+cmd) {
			t.Errorf("no ok line for %s:\n%s", cmd, out.String())
		}
	}
	if len(e.runs) != 4 {
		t.Fatalf("%d container starts, want 4", len(e.runs))
	}
	c := e.runs[1]
	// What the runner sets for a Docker action.
	for k, want := range map[string]string{
		"GITHUB_WORKSPACE": "/github/workspace", "HOME": "/github/home", "GITHUB_EVENT_PATH": "/github/workflow/event.json",
		"GITHUB_EVENT_NAME": "issue_comment", "INPUT_COMMAND": "ingest", "INPUT_GITHUB-TOKEN": Token,
		"INPUT_BLOCKED-LABEL": "clarification-blocked", "INPUT_OPERATIONS-PER-RUN": "400",
	} {
		if c.Env[k] != want {
			t.Errorf("%s=%q, want %q", k, c.Env[k], want)
		}
	}
	if !strings.HasPrefix(c.Env["GITHUB_OUTPUT"], "/github/file_commands/set_output_") || c.Workdir != "/github/workspace" {
		t.Errorf("GITHUB_OUTPUT %q, workdir %q", c.Env["GITHUB_OUTPUT"], c.Workdir)
	}
}

// A step that fails its check fails Check, naming the command.
func TestCheckFailsAWrongResult(t *testing.T) {
	e := &failing{inner: &inProcess{}, command: "ingest"}
	err := Check(context.Background(), Options{Engine: e, RepoRoot: repoRoot(), Out: io.Discard})
	if err == nil || !strings.HasPrefix(err.Error(), "ingest: ") {
		t.Fatalf("want the ingest step to fail, got %v", err)
	}
}

// failing runs one command as an unknown one: the action exits 1.
type failing struct {
	inner   Engine
	command string
}

func (f *failing) Run(ctx context.Context, c Container) (Result, error) {
	if c.Env["INPUT_COMMAND"] == f.command {
		c.Env["INPUT_COMMAND"] = "no-such-command"
	}
	return f.inner.Run(ctx, c)
}

func TestDockerArgsAreTheRunners(t *testing.T) {
	t.Parallel()
	c := Container{Env: map[string]string{"INPUT_COMMAND": "sync", "GITHUB_OUTPUT": "/github/file_commands/set_output_0"},
		Mounts: []Mount{{"/tmp/ws", "/github/workspace"}}, Workdir: "/github/workspace"}
	got := strings.Join(Docker{Client: "docker", Image: "img"}.Args(c), " ")
	want := "run --rm --network host --workdir /github/workspace -v /tmp/ws:/github/workspace -e GITHUB_OUTPUT -e INPUT_COMMAND img"
	if got != want {
		t.Fatalf("docker %s\nwant   %s", got, want)
	}
	// Values go through the client's environment, never the command line.
	if strings.Contains(got, "sync") {
		t.Fatal("an input's value is on the command line")
	}
}
