package hookcmd

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/jsonfilter"
	"github.com/agentx-dev/agentx/internal/testbin"
	"github.com/agentx-dev/agentx/internal/testenv"

	// Race-built agentx-hook processes skip the race detector's exit sleep.
	_ "github.com/agentx-dev/agentx/internal/gorace"
)

// TestMain puts this test binary on $PATH as `agentx-hook` (and as the
// helpers of process_test.go), so a test or script can start it as a real
// process: `exec agentx-hook ...` in a script, exec.Command("agentx-hook")
// in a test.
//
// A script line without `exec` (`agentx-hook ...`) runs the command in this
// process instead (inProcess below), with the script's environment,
// directory and output: the same App.Run a process runs, without the
// process start (about 20 ms race-built, even with GORACE's exit sleep off).
// The processes an in-process command starts (git, responders) get the
// script's environment (App.Environ, through process.WithEnv). Scripts
// keep `exec` where a separate process is the point or the command reads
// the process's own state: background commands (`&`, locking and
// concurrency), signals, `timeout`, standard input (a hook's payload goes
// through `pipe FILE agentx-hook ...`, scriptpipe_test.go, never through
// `stdin` and `exec`, which can hand it over too late), the program's name (audit_trail.txtar checks the
// audit trail's "tool"), relative paths (relativePathArg) and the demo
// (it starts itself again).
func TestMain(m *testing.M) {
	switch name := filepath.Base(os.Args[0]); {
	case name == "agentx-hook" || name == "agentx-mcp":
		if name == "agentx-mcp" {
			// As cmd/agentx-mcp: agentx-hook hands --jq and --template here.
			JSONFilter, JSONFilterCheck = jsonfilter.Apply, jsonfilter.Check
		}
		grace := signalGrace
		if ms, err := strconv.Atoi(os.Getenv(testSignalGraceEnv)); err == nil {
			grace = time.Duration(ms) * time.Millisecond
		}
		var ready func(context.Context)
		if os.Getenv(testSignalReadyEnv) != "" {
			ready = func(ctx context.Context) {
				fmt.Fprintln(os.Stderr, signalsReadyLine)
				go func() {
					<-ctx.Done()
					fmt.Fprintln(os.Stderr, signalTakenLine)
				}()
			}
		}
		os.Exit(mainGrace(os.Args[1:], grace, ready))
	case testHelpers()[name] != nil:
		testHelpers()[name]()
		os.Exit(0)
	}
	// In-process commands filter as agentx-mcp does (jsonout_test.go runs
	// agentx-hook's hand-over as processes).
	JSONFilter, JSONFilterCheck = jsonfilter.Apply, jsonfilter.Check
	// Most tests here wait on the processes they start or on a deadline.
	testenv.RaiseParallel(4)
	// testscript.Main installs the helpers, and would install agentx-hook
	// too, but a command installed there is always run as a process, even
	// without `exec`: agentx-hook goes on $PATH here instead.
	bin, err := os.MkdirTemp("", "agentx-hook-test")
	if err != nil {
		panic(err)
	}
	// agentx-mcp too, so doctor finds the MCP server's binary beside
	// agentx-hook (this one has no server: internal/mcpcmd tests it).
	for _, name := range []string{"agentx-hook", "agentx-mcp"} {
		if err := testbin.InstallSelf(filepath.Join(bin, name)); err != nil {
			panic(err)
		}
	}
	_ = os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := writeQuietGitConfig(filepath.Join(bin, "gitconfig")); err != nil {
		panic(err)
	}
	// The RAM temporary directory comes after bin and after testscript.Main
	// put its helpers on $PATH (cleanupM.Run): both hard-link this binary,
	// which needs a directory on its filesystem (doctor_healthy checks that
	// the agentx-hook on PATH is this one); testscript copied it instead,
	// 18 MB for each of its five helpers at every start (issue 37).
	testscript.Main(cleanupM{m, bin}, testHelpers())
}

// quietGitConfig is the global git configuration of every git the tests
// here start (GIT_CONFIG_GLOBAL, set for the test binary and each
// script): no automatic gc or maintenance, not even on the remote a push
// reaches. After each commit, fetch and push git started `git
// maintenance run --auto` or `git gc --auto` (86 processes a run, each
// finding nothing to do in repositories of a few dozen objects, issue
// 37). It holds nothing else: identity and the rest stay each test's.
const quietGitConfig = `[gc]
	auto = 0
[receive]
	autogc = false
[maintenance]
	auto = false
`

// quietGitConfigFile is where TestMain wrote quietGitConfig. The scripts
// take this path, not the process's GIT_CONFIG_GLOBAL: the state branch
// tests here point that at a configuration of their own
// (statebranchtest.Env), with an empty template directory.
var quietGitConfigFile string

// writeQuietGitConfig writes quietGitConfig at path and points the test
// binary's git (and so every process it starts) at it.
func writeQuietGitConfig(path string) error {
	if err := os.WriteFile(path, []byte(quietGitConfig), 0o644); err != nil {
		return err
	}
	quietGitConfigFile = path
	return os.Setenv("GIT_CONFIG_GLOBAL", path)
}

// testSignalGraceEnv shortens, for one agentx-hook process of a test, the
// grace after a first signal (milliseconds; signals_test.go).
const testSignalGraceEnv = "AGENTX_TEST_SIGNAL_GRACE_MS"

// testSignalReadyEnv makes the test binary's agentx-hook say
// signalsReadyLine on stderr once its signal handlers are in place.
const (
	testSignalReadyEnv = "AGENTX_TEST_SIGNALS_READY"
	signalsReadyLine   = "agentx-test: signal handlers installed"
	// signalTakenLine follows once the first signal cancelled the
	// command's context: the handler has it, and a second one is counted.
	signalTakenLine = "agentx-test: first signal taken"
)

// cleanupM runs the tests in a RAM temporary directory and removes the
// $PATH directory of agentx-hook after them (testscript.Main ends the
// process itself).
type cleanupM struct {
	m   *testing.M
	dir string
}

func (c cleanupM) Run() int {
	defer testenv.UseRAMTempDir()()
	defer removeFixtures()
	defer func() { _ = os.RemoveAll(c.dir) }()
	return c.m.Run()
}

// inProcess is the script command `agentx-hook ARGS`: App.Run in this
// process with the script's environment, directory and output. Standard
// input is empty, as for an exec with no `stdin` before it. Scripts run in
// parallel: nothing here touches the process's environment or directory.
// os.Args[0] stays the test binary's: an in-process audit entry names it
// as its tool (audit_trail.txtar, which checks the name, runs processes),
// and a hook never starts the test binary as its background index rebuild.
func inProcess(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) > 0 && args[0] == "demo" && !slices.Contains(args, "--help") && !slices.Contains(args, "-h") {
		// The demo starts os.Args[0] again: in process that is this test
		// binary, which runs for seconds doing something else entirely.
		ts.Fatalf("agentx-hook %s: the demo starts itself again: run it with exec", strings.Join(args, " "))
	}
	if p := relativePathArg(args); p != "" {
		ts.Fatalf("agentx-hook %s: %s is opened relative to the process's directory, not the script's: run it with exec", strings.Join(args, " "), p)
	}
	a := &App{
		Stdin: strings.NewReader(""), Stdout: ts.Stdout(), Stderr: ts.Stderr(),
		Getenv: ts.Getenv, Cwd: ts.MkAbs("."), Clock: clock.Real{},
		Environ: func() []string { return scriptEnviron(ts) },
	}
	code := a.Run(context.Background(), args)
	if code != 0 {
		ts.Logf("[exit status %d]", code)
	}
	switch {
	case code != 0 && !neg:
		ts.Fatalf("agentx-hook %s: exit status %d", strings.Join(args, " "), code)
	case code == 0 && neg:
		ts.Fatalf("agentx-hook %s: unexpected success", strings.Join(args, " "))
	}
}

// scriptEnviron is the script's environment as a list, for the processes
// an in-process command starts (git, responders): testscript hands out
// single variables only (ts.Getenv), so the list is built from every name
// that can be set there: the process's variables, testscript's own and
// every name a script sets with `env`.
func scriptEnviron(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range scriptEnvNames() {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// scriptEnvNames lists the names scriptEnviron looks up, once per test
// binary.
var scriptEnvNames = sync.OnceValue(func() []string {
	names := map[string]bool{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		names[k] = true
	}
	// Set by testscript for every script.
	for _, k := range []string{"WORK", "HOME", "TMPDIR", "PATH", "GOTRACEBACK", "USERPROFILE", "SYSTEMROOT", "exe", "devnull"} {
		names[k] = true
	}
	scripts, _ := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	for _, f := range scripts {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 2 || fields[0] != "env" {
				continue
			}
			for _, kv := range fields[1:] {
				if k, _, ok := strings.Cut(kv, "="); ok {
					names[k] = true
				}
			}
		}
	}
	// The scripts' own Setup sets these too.
	names["NO_COLOR"], names["AGENTX_ROOT"], names["GIT_CONFIG_GLOBAL"] = true, true, true
	return slices.Sorted(maps.Keys(names))
})

// relativePathArg returns the first relative path given to a flag that
// names a file or directory (the OS resolves it against the process's
// directory, which in-process is the package's, not the script's). A new
// flag that names a file belongs in this list.
func relativePathArg(args []string) string {
	for i, arg := range args {
		name, val, inline := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") {
			continue
		}
		switch name {
		case "root", "file", "summary-file", "dir", "out":
		default:
			continue
		}
		if !inline {
			if i+1 == len(args) {
				continue
			}
			val = args[i+1]
		}
		if val != "" && val != "-" && !filepath.IsAbs(val) {
			return val
		}
	}
	return ""
}

// TestScripts runs the end-to-end scripts in testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"agentx-hook": inProcess, "pipe": pipeCmd, "waitfor": waitForCmd,
			"seededremote": seededRemoteCmd},
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("AGENTX_ROOT", "")
			env.Setenv("GIT_CONFIG_GLOBAL", quietGitConfigFile)
			return nil
		},
	})
}
