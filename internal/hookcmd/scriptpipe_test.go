package hookcmd

import (
	"errors"
	"os"
	"os/exec"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentx-dev/agentx/internal/testbin"
)

// pipeCmd is the script command `pipe FILE PROG [ARGS...]`: PROG runs as a
// process, in the script's directory and environment like `exec`, with
// FILE's content already written into a closed pipe on its standard
// input. `stdin FILE` followed by `exec` gives the process a pipe that a
// goroutine of the test fills after the process started; on a loaded
// machine that comes after a hook's wait for its payload (200 ms for the
// first byte) and the hook runs without it, so a script's verdict would
// depend on the scheduler. With `pipe` it depends on the payload only.
func pipeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: pipe FILE PROG [ARGS...]")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	stdin, err := testbin.FilledPipe(data)
	ts.Check(err)
	defer func() { _ = stdin.Close() }()
	path, err := exec.LookPath(args[1])
	ts.Check(err)
	cmd := exec.Command(path, args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(scriptEnviron(ts), "PWD="+cmd.Dir)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, ts.Stdout(), ts.Stderr()
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		ts.Logf("[%v]", err)
		if !neg {
			ts.Fatalf("pipe %s: %v", strings.Join(args, " "), err)
		}
	case err != nil:
		ts.Fatalf("pipe %s: %v", strings.Join(args, " "), err)
	case neg:
		ts.Fatalf("pipe %s: unexpected success", strings.Join(args, " "))
	}
}
