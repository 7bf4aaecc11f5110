// Package actioncmd is the entry point of agentx-action, the Docker GitHub
// Action that mirrors clarification ledgers to issues (GitHub Mode). It
// reads the runner's protocol (inputs, event payload, output files) through
// go-githubactions, wires internal/sync and the core together, and prints.
// It holds no protocol logic.
package actioncmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/sync"
)

// Version is set at build time with -ldflags "-X ...actioncmd.Version=...".
var Version = "dev"

// App is one invocation: its streams, environment and clock.
type App struct {
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Cwd    string
	Clock  clock.Clock

	locks  *lock.Locker // the process's lock manager, made on first use
	syncer *sync.Syncer // the run's syncer, for the report (explain.go)
	// monitorRead and monitorSkipped count the ledgers the monitor read
	// and those the sync state vouched for (the run's summary).
	monitorRead, monitorSkipped int
}

// Locks returns the process's one lock manager.
func (a *App) Locks() *lock.Locker {
	if a.locks == nil {
		a.locks = lock.New(lock.Options{Clock: a.Clock})
	}
	return a.locks
}

// Main runs agentx-action with args (without the program name) and returns
// the exit status: 0 success, 1 the run failed, 2 usage error.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cwd, _ := os.Getwd()
	a := &App{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Cwd: cwd, Clock: clock.Real{}}
	return a.Run(ctx, args)
}

// Run dispatches: no argument runs the action as the runner configured it
// (INPUT_* variables).
func (a *App) Run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		return a.runAction(ctx)
	}
	switch args[0] {
	case "-h", "--help", "help":
		a.usage(a.Stdout)
		return 0
	case "--version", "version":
		fmt.Fprintln(a.Stdout, "agentx-action", Version)
		return 0
	case "demo":
		// The demo runs a fake GitHub, which is test code: it is its own
		// program so this binary (the Docker image) does not link it.
		fmt.Fprintf(a.Stderr, "error: usage: the demo is its own program: go run ./cmd/agentx-action-demo\n")
		return 2
	}
	// The error line comes first, as agentx-hook's do: scripts read line one.
	fmt.Fprintf(a.Stderr, "error: usage: unknown argument %q\n\n", args[0])
	a.usage(a.Stderr)
	return 2
}

func (a *App) usage(w io.Writer) {
	fmt.Fprintln(w, "agentx-action: GitHub Mode for agentx (runs inside the Docker action)")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  agentx-action          run as the action; inputs come from INPUT_* as the runner sets them")
	fmt.Fprintln(w, "  go run ./cmd/agentx-action-demo   sync sample ledgers to a local fake GitHub and print the issues")
	fmt.Fprintln(w, "  agentx-action --version")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Input `command`: sync (mirror ledgers to comments and labels), ingest (apply /clarify")
	fmt.Fprintln(w, "commands from an issue_comment event), monitor (stale/stuck/deadlock check, then sync),")
	fmt.Fprintln(w, "digest (the weekly report as the step summary and the week's agentx-digest issue).")
	fmt.Fprintln(w, "See https://github.com/agentx-dev/agentx/blob/main/docs/github-mode.md for every input and output.")
}
