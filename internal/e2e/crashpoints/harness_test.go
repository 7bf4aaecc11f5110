//go:build linux && (amd64 || arm64)

// The harness's processes: TestMain (the tracer's entry, the shared
// agentx-hook build, a git environment independent of the machine), how
// a test runs agentx-hook plainly and under the tracer, and copies of a
// prepared workspace.

package crashpoints

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"

	"github.com/agentx-dev/agentx/internal/testbin"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// hookBin is the real agentx-hook TestMain found or built.
var hookBin string

// scratch is the directory TestMain creates (git's home, the templates).
var scratch string

func TestMain(m *testing.M) {
	if os.Getenv(envFilterExec) == "1" {
		os.Exit(filterExecMain()) // this process installs the filter and execs the command
	}
	if os.Getenv(envTrace) != "" {
		os.Exit(tracerMain()) // this process is a tracer (tracedEnv)
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	defer testenv.UseRAMTempDir()()
	var err error
	if hookBin, err = testbin.SharedHook(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "agentx-crashpoints-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	scratch = dir
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENTX_") && k != "AGENTX_TESTENV_DIR" && !strings.HasPrefix(k, "AGENTX_CRASH_") || strings.HasPrefix(k, "GIT_") {
			os.Unsetenv(k)
		}
	}
	if err := sbt.SetGitEnv(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("NO_COLOR", "1")
	os.Setenv("GIT_TERMINAL_PROMPT", "0")
	return m.Run()
}

// result is what one process did.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, strings.TrimSpace(r.stdout), strings.TrimSpace(r.stderr))
}

// run runs name with args in dir with stdin (none when empty); a process
// that could not start, or ran past two minutes, is an error, a non-zero
// exit is not.
func run(dir, stdin, name string, args ...string) (result, error) {
	return runEnv(dir, stdin, nil, name, args...)
}

// hook runs agentx-hook in dir.
func hook(dir string, args ...string) (result, error) { return run(dir, "", hookBin, args...) }

// mustHook runs agentx-hook in dir and fails t unless it exits 0.
func mustHook(t testing.TB, dir string, args ...string) string {
	t.Helper()
	res, err := hook(dir, args...)
	if err != nil || res.code != 0 {
		t.Fatalf("agentx-hook %s: %v %s", strings.Join(args, " "), err, res)
	}
	return res.stdout
}

// tracedEnv runs agentx-hook with args in dir under the tracer, killed on
// entry to its killAt-th mutating call (never when killAt is 0), stdin as
// given, env added to the tracer's environment (envChildren). The tracer
// returns once the command and every process it left have ended.
func tracedEnv(dir, stdin string, killAt int, env []string, args ...string) (report, result, error) {
	self, err := os.Executable()
	if err != nil {
		return report{}, result{}, err
	}
	argv, _ := json.Marshal(append([]string{hookBin}, args...))
	repFile := filepath.Join(dir, "..", fmt.Sprintf("tracer-%d.json", killAt))
	res, err := runEnv(dir, stdin, append([]string{
		envTrace + "=" + fmt.Sprint(killAt), envArgv + "=" + string(argv), envReport + "=" + repFile,
	}, env...), self)
	if err != nil {
		return report{}, res, err
	}
	var rep report
	data, err := os.ReadFile(repFile)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err == nil && rep.Error != "" {
		err = errors.New(rep.Error)
	}
	if err != nil {
		return rep, res, fmt.Errorf("tracer (agentx-hook %s, kill at %d): %w\n%s", strings.Join(args, " "), killAt, err, res)
	}
	res.code = rep.Exit
	return rep, res, nil
}

// runEnv is run with variables added to the environment.
func runEnv(dir, stdin string, env []string, name string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		r, err := testbin.FilledPipe([]byte(stdin))
		if err != nil {
			return result{}, err
		}
		defer r.Close()
		cmd.Stdin = r
	}
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("%s %s: still running after two minutes: %s", name, strings.Join(args, " "), res)
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		return res, fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return res, nil
}

// git runs git in dir and returns its trimmed stdout; it fails t on an
// error.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	res, err := run(dir, "", "git", args...)
	if err != nil || res.code != 0 {
		t.Fatalf("git %s in %s: %v %s", strings.Join(args, " "), dir, err, res)
	}
	return strings.TrimSpace(res.stdout)
}
