//go:build unix

// The harness's processes: TestMain (the shared agentx-hook build, a git
// environment independent of the machine) and how a test runs git and
// agentx-hook, killed mid-sync included. Waiting for what a step left
// running is in quiesce_test.go, the world the tests act on in world_test.go.

package statesafety

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// agentxBin is the agentx-hook binary TestMain builds or finds built
// (testenv.SharedBinary), without the race detector: it starts several
// times faster, and the code under test is the binary's behaviour, not
// its data races.
var agentxBin string

// modelEnv keeps the AGENTX_MODEL_ settings of the test's environment,
// which TestMain clears for the processes the tests start.
var modelEnv = map[string]string{}

// scratch is the directory TestMain creates and removes.
var scratch string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	defer testenv.UseRAMTempDir()()
	dir, err := os.MkdirTemp("", "agentx-statesafety-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	scratch = dir
	// Built once per content of the module, shared with later runs and a
	// second copy of the suite (issue 37).
	agentxBin, err = testenv.SharedBinary("agentx-hook", "go build ./cmd/agentx-hook",
		testenv.GoBuild("github.com/agentx-dev/agentx/cmd/agentx-hook"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := gitEnv(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The scenarios mostly wait for git and agentx-hook processes: with
	// only GOMAXPROCS of them at once, beside the model test they ran one
	// after another (issue 37).
	testenv.RaiseParallel(4)
	return m.Run()
}

// gitEnv makes git (and agentx-hook) independent of the machine: the
// state branch tests' git environment (statebranchtest.SetGitEnv), no
// AGENTX_ or GIT_ variable of the environment the tests run in, no colour
// and no prompt.
func gitEnv(dir string) error {
	// Read by name (envInt names them to go test's cache too).
	for _, k := range []string{"AGENTX_MODEL_SEQS", "AGENTX_MODEL_SEED", "AGENTX_MODEL_WORKERS", "AGENTX_MODEL_TRACE"} {
		if v := os.Getenv(k); v != "" {
			modelEnv[k] = v
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENTX_") || strings.HasPrefix(k, "GIT_") {
			os.Unsetenv(k)
		}
	}
	if err := sbt.SetGitEnv(dir); err != nil {
		return err
	}
	os.Setenv("NO_COLOR", "1")
	os.Setenv("GIT_TERMINAL_PROMPT", "0")
	return nil
}

// result is what one process did.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, strings.TrimSpace(r.stdout), strings.TrimSpace(r.stderr))
}

// run runs name with args in dir, stdin empty, within a minute; a process
// that could not start is an error, a non-zero exit is not.
func run(dir, name string, args ...string) (result, error) {
	return runWith(dir, nil, "", name, args...)
}

// runWith is run with variables added to the environment and stdin.
func runWith(dir string, env []string, stdin, name string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
		if ctx.Err() != nil {
			return res, fmt.Errorf("%s %s: timed out after a minute: %s", name, strings.Join(args, " "), res)
		}
	case err != nil:
		return res, fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return res, nil
}

// mustGit runs git in dir and returns its trimmed stdout, failing on any
// error.
func mustGit(dir string, args ...string) (string, error) {
	return gitEnvIn(dir, nil, args...)
}

// gitEnvIn is mustGit with variables added to the environment.
func gitEnvIn(dir string, env []string, args ...string) (string, error) {
	return gitInputEnv(dir, env, "", args...)
}

// gitInput is mustGit with stdin.
func gitInput(dir, stdin string, args ...string) (string, error) {
	return gitInputEnv(dir, nil, stdin, args...)
}

func gitInputEnv(dir string, env []string, stdin string, args ...string) (string, error) {
	res, err := runWith(dir, env, stdin, "git", args...)
	if err != nil {
		return "", err
	}
	if res.code != 0 {
		return "", fmt.Errorf("git %s in %s: %s", strings.Join(args, " "), dir, res)
	}
	return strings.TrimSpace(res.stdout), nil
}

// hook runs agentx-hook in dir.
func hook(dir string, args ...string) (result, error) { return run(dir, agentxBin, args...) }

// killedSync starts `agentx-hook sync` in dir, kills it with SIGKILL after
// delay, and waits until every process it started (git fetch, git push,
// which a SIGKILL of their parent leaves running, as it would for a user)
// has ended too (quiesce under world), so that the next step sees a quiet
// repository.
func killedSync(world, dir string, delay time.Duration) (finished bool, err error) {
	cmd := exec.Command(agentxBin, "sync")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		finished = true
	case <-time.After(delay):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}
	return finished, quiesce(world)
}
