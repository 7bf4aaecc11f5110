// Package hookcmd is the command line of agentx-hook: it parses arguments,
// wires the core packages together and prints. It holds no protocol logic.
//
// Each command is an options struct, a parseX(a, argv) that fills it and a
// runX(ctx, a, opts) that acts, joined by wire (output.go); a --json
// document is a typed struct written by App.writeDoc, and a warning goes
// through App.warn.
package hookcmd

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/process"
	"github.com/agentx-dev/agentx/internal/core/render"
	"github.com/agentx-dev/agentx/internal/core/responder"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/session"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/statesync"
	"github.com/agentx-dev/agentx/internal/core/suggest"
	"github.com/agentx-dev/agentx/internal/core/workspace"
	"github.com/agentx-dev/agentx/internal/iostreams"
)

// Version is set at build time with -ldflags "-X ...hookcmd.Version=...".
var Version = "dev"

// SchemaVersion is the version of every --json document.
const SchemaVersion = 2

// App is one invocation: its streams, environment and lazily built core.
type App struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Environ is the environment of the processes the command starts
	// (git, responders), when it is not the process's own: a test that
	// runs commands in-process gives each its script's (nil: inherited).
	Environ func() []string
	Cwd     string
	Clock   clock.Clock
	// IsTerminal reports whether stdout/stderr are terminals.
	StdoutTTY bool
	StderrTTY bool
	// Merge merges a state file changed on both sides in `sync` (nil:
	// statemerge.MergeFile; tests put a stand-in here).
	Merge statebranch.FileMerger

	rootFlag string
	ws       *workspace.Workspace
	locks    *lock.Locker
	cfg      *config.Set
	rt       *router.Router
	// hook is the deadline of the hook being run, if any (deadline.go).
	hook *session.Run
	// warnings are the warnings printed so far (a hook's run is logged
	// with them for doctor: the host hides its stderr).
	warnings []string
	// checkpointWarned: an automatic checkpoint's failure is told once.
	checkpointWarned bool
	// contained: the workspace's containment was checked and holds.
	contained bool
	// indexBG is the background rebuild of the memory index (indexbg.go).
	indexBG *statesync.IndexRebuild
	// hookIssue is the running hook's issue (0: none): its state files
	// are pulled first.
	hookIssue int
	// jsonOut is the command's --json settings (jsonout.go).
	jsonOut *jsonFlag
	// flagSets collects the flag sets a command line makes, when set
	// (completionflags.go: completion reads the flags they define).
	flagSets *[]*flag.FlagSet
	// flagsName is the name of the last flag set made ("ready", "clarify
	// show"): a usage error's hint names its --help.
	flagsName string
	// waitPoll and waitProgress pace a request's wait for its answer
	// (clarifywait.go; zero: the defaults).
	waitPoll, waitProgress time.Duration
	// liveStderr is stderr while failFirst holds a command's own: what
	// must be seen as it happens (a wait's progress) goes there.
	liveStderr io.Writer
	// armSignals arms a signal handler set up on demand (signalsFor); the
	// Locker calls it before every lock, so no locked write runs without
	// it (nil: armed at the start, or none).
	armSignals func()
}

// command is one top-level command.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, a *App, args []string) error
}

// commands is the registry of top-level commands; each lives in its own file.
func commands() []command {
	return []command{
		{"init", "create .agentx/ with the default config and workflows", wire(parseInit, runInit)},
		{"clarify", "request, answer and list clarifications between agents", runClarify},
		{"state", "show agent statuses", wire(parseState, runState)},
		{"events", "show the event log", wire(parseEvents, runEvents)},
		{"monitor", "check for stale, stuck and deadlocked clarifications and act", wire(parseMonitor, runMonitor)},
		{"artifact", "the stage artifacts of each issue (PRD, ADR, SPEC): list, show, add, approve, reject, ack, reopen", runArtifact},
		{"ready", "issues with their BLOCKED: Clarification pending markers", wire(parseReady, runReady)},
		{"hook", "agent lifecycle hooks: hook start, hook finish, hook deliver", runHook},
		{"memory", "search, inspect and maintain the memory store", runMemory},
		{"mcp", "serve the clarification and memory tools over MCP (stdio) for agent hosts (runs agentx-mcp)", wire(parseMCP, runMCP)},
		{"view", "a read-only web view of clarifications, agents, memory and the digest (runs agentx-view)", wire(parseView, runView)},
		{"hooks", "install, remove and check agentx's git hooks", runHooks},
		{"setup", "wire agentx into Claude Code, Codex or Copilot and git in one step", wire(parseSetup, runSetup)},
		{"uninstall", "remove everything agentx added to this repository (--dry-run lists it)", wire(parseUninstall, runUninstall)},
		{"doctor", "check that agentx is wired and working here, with the command that fixes each problem", wire(parseDoctor, runDoctor)},
		{"git-hook", "what the git hook shims run (post-commit, pre-push, post-merge)", wire(parseGitHook, runGitHook)},
		{"merge-driver", "what git runs to merge state files (hooks install --merge-driver)", wire(parseMergeDriver, runMergeDriver)},
		{"sync", "share the state on the state branch (GitHub Mode)", wire(parseSync, runSync)},
		{"checkpoint", "snapshot, list, compare and restore the state under .agentx/ (git)", runCheckpoint},
		{"digest", "weekly digest of clarification and memory figures", wire(parseDigest, runDigest)},
		{"verify", "check the integrity of everything under .agentx/ (--repair fixes what is derivable)", wire(parseVerify, runVerify)},
		{"audit", "the audit trail of state changes, oldest first", wire(parseAudit, runAudit)},
		{"demo", "run a scripted tour in a temporary workspace", wire(parseDemo, runDemo)},
		{"version", "print the version", wire(parseVersion, runVersion)},
		{"completion", "print a shell completion script (bash, zsh, fish, powershell)", wire(parseCompletion, runCompletion)},
	}
}

// Main runs agentx-hook with args (without the program name) and returns
// the exit status: 0 success, 1 an operation failed, 2 usage error.
func Main(args []string) int { return mainGrace(args, signalGrace, nil) }

// mainGrace is Main with the grace after a first signal as a parameter,
// and a call once the signal handlers are in place, given the context the
// first signal cancels (the signal tests set both: they signal only a
// process that handles signals, and send a second signal only once the
// first was taken, without guessing how long either takes).
func mainGrace(args []string, grace time.Duration, signalsReady func(ctx context.Context)) int {
	ctx, stop, arm := signalsFor(args, grace, signalsReady) // quickstart.go
	defer stop()
	defer armBeforeWrites(arm)()
	cwd, _ := os.Getwd()
	a := &App{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Cwd: cwd,
		Clock: clock.Real{}, StdoutTTY: iostreams.IsTerminal(os.Stdout), StderrTTY: iostreams.IsTerminal(os.Stderr),
		armSignals: arm,
	}
	return a.Run(ctx, args)
}

// armBeforeWrites makes a handler armed on demand (arm, nil: none) armed
// before every atomic write's temporary too (atomicfile.SetBeforeCreate),
// as the Locker arms it before every lock; it returns the undoing.
func armBeforeWrites(arm func()) (restore func()) {
	if arm == nil {
		return func() {}
	}
	return atomicfile.SetBeforeCreate(arm)
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// errHelp is returned after help was printed (exit 0).
var errHelp = errors.New("help printed")

// Run dispatches one command line.
func (a *App) Run(ctx context.Context, args []string) int {
	defer a.filterOutput()()
	if a.Environ != nil {
		ctx = process.WithEnv(ctx, a.Environ())
	}
	a.applyTestClock() // $AGENTX_NOW: tests and the demo step past SLAs (monitor.go)
	// Global flags come before the command.
	rootGiven := false
	for len(args) > 0 {
		arg := args[0]
		switch {
		case arg == "--root" || arg == "-root":
			if len(args) < 2 {
				return a.fail(usagef("--root needs a directory"))
			}
			a.rootFlag, args, rootGiven = args[1], args[2:], true
		case strings.HasPrefix(arg, "--root="):
			a.rootFlag, args, rootGiven = strings.TrimPrefix(arg, "--root="), args[1:], true
		case arg == "-h" || arg == "--help" || arg == "help":
			if arg == "help" && len(args) > 1 {
				return a.Run(ctx, []string{args[1], "--help"})
			}
			a.usage(a.Stdout)
			return 0
		case arg == "--version":
			fmt.Fprintln(a.Stdout, "agentx-hook", versionLine())
			return 0
		default:
			goto dispatch
		}
	}
dispatch:
	if rootGiven && a.rootFlag == "" { // --root "$UNSET": never the current directory's
		return a.fail(usagef("--root is empty: name the workspace's directory"))
	}
	if JSONFilter == nil && wantsJSONFilter(args) { // jsonout.go
		return a.forwardJSONFilter(ctx, args)
	}
	if a.rootFlag != "" {
		// A misspelt --root would otherwise become a new workspace.
		if fi, err := os.Stat(a.rootFlag); err != nil || !fi.IsDir() {
			return a.fail(a.unknown(usagef("--root %s: no such directory", a.rootFlag), args))
		}
	}
	if len(args) == 0 {
		a.usage(a.Stderr)
		return 2
	}
	if args[0] == completeCommand {
		return runComplete(ctx, a, args[1:])
	}
	if args[0] == "__demo-responder" {
		return a.fail(runDemoResponder(ctx, a, args[1:]))
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return a.runCommand(ctx, c, args[1:])
		}
	}
	names := make([]string, 0, len(commands()))
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return a.fail(a.unknown(usagef("unknown command %q%s (run `agentx-hook --help`)", args[0], suggest.DidYouMean(args[0], names)), args[1:]))
}

// filterOutput makes stdout and stderr strip escape sequences: text we
// print was written by agents and commenters, and none of their sequences
// may reach a terminal (termwriter.go). It returns what flushes them.
func (a *App) filterOutput() func() {
	if _, ok := a.Stdout.(*iostreams.TermWriter); ok {
		return func() {}
	}
	out, errw := iostreams.NewTermWriter(a.Stdout, a.Style().Color), iostreams.NewTermWriter(a.Stderr, a.ErrStyle().Color)
	a.Stdout, a.Stderr = out, errw
	return func() { _ = out.Flush(); _ = errw.Flush() }
}

// runCommand runs one top-level command and returns the exit status.
func (a *App) runCommand(ctx context.Context, c command, args []string) int {
	if err := a.checkContained(c.name, args); err != nil {
		return a.fail(err)
	}
	switch c.name {
	case "hook", "git-hook", "sync", "demo":
		// Hosts may kill a hook, and sync and demo run long: what
		// they say goes out at once (hooks exit 0 anyway).
		return a.fail(c.run(ctx, a, args))
	}
	return a.failFirst(func() error { return jsonFieldsHint(c.run(ctx, a, args), args) })
}

func (a *App) usage(w io.Writer) {
	fmt.Fprintf(w, "agentx-hook: clarification and memory for teams of AI coding agents\n\n")
	fmt.Fprintf(w, "Usage: agentx-hook [--root DIR] COMMAND [ARGS]\n")
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.name))
	}
	for _, g := range groupedCommands() { // helpgroups.go
		fmt.Fprintf(w, "\n%s commands:\n", g.title)
		for _, c := range g.commands {
			fmt.Fprintf(w, "  %-*s %s\n", width, c.name, c.summary)
		}
	}
	fmt.Fprintf(w, "\nThe root is --root, else $AGENTX_ROOT, else the nearest ancestor holding .agentx/,\n")
	fmt.Fprintf(w, "else the git top level, else the current directory.\n")
	fmt.Fprintf(w, "Run `agentx-hook COMMAND --help` for a command's flags.\n")
}

// failFirst runs a command holding back what it writes to stderr, so that
// when it fails the first stderr line is still `error: CODE: ...` as the
// contract says, even after the monitor's side effect (which runs after
// every clarify command) warned about something else. What was held back
// follows the error; on success it is written as it was.
func (a *App) failFirst(run func() error) int {
	stderr := a.Stderr
	var held bytes.Buffer
	a.Stderr, a.liveStderr = &held, stderr
	err := run()
	a.Stderr, a.liveStderr = stderr, nil
	code := a.fail(err)
	_, _ = stderr.Write(held.Bytes())
	return code
}

// fail prints err the way the contract says and returns the exit status.
// A failure of a command whose options asked for JSON (see wire) is also
// printed as one document on stdout.
func (a *App) fail(err error) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	var ec *exitCode
	if errors.As(err, &ec) {
		return ec.code
	}
	var jf *jsonFailure
	jsonMode := errors.As(err, &jf)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(a.Stderr, "error: usage: %s\n", ue.msg)
		if jsonMode {
			// A script that asked for JSON pipes stdout to a parser: it
			// gets one document here too, never an empty stream.
			cmd := a.flagsName
			if cmd == "" {
				cmd = "COMMAND"
			}
			_ = a.writeDoc(&failureDoc{Error: errorBody{Code: "USAGE", Message: ue.msg,
				Hint: "run `agentx-hook " + cmd + " --help` for the flags"}})
		}
		return 2
	}
	code, hint := errcode.Classify(err)
	fmt.Fprintf(a.Stderr, "error: %s: %s\n", code, err.Error())
	if hint != "" {
		fmt.Fprintf(a.Stderr, "hint: %s\n", hint)
	}
	if jsonMode {
		doc := &failureDoc{Error: errorBody{Code: string(code), Message: err.Error(), Hint: hint}}
		var le *landedError
		if errors.As(err, &le) {
			// The record did land: the document names it, as text mode
			// prints its id.
			doc.ID, doc.Status, doc.Round = le.rec.ID, le.rec.Status, le.rec.Round
		}
		_ = a.writeDoc(doc)
	}
	return 1
}

// Style returns the styling for stdout: colour only on a terminal and
// never when NO_COLOR is set.
func (a *App) Style() render.Style {
	return render.Style{Color: iostreams.Color(a.StdoutTTY, a.Getenv)}
}

// ErrStyle is Style for stderr.
func (a *App) ErrStyle() render.Style {
	return render.Style{Color: iostreams.Color(a.StderrTTY, a.Getenv)}
}

// Workspace returns the workspace root.
func (a *App) Workspace() workspace.Workspace {
	if a.ws == nil {
		ws := workspace.Find(a.rootFlag, a.Getenv("AGENTX_ROOT"), a.Cwd)
		a.ws = &ws
	}
	return *a.ws
}

// Config returns the workspace configuration.
func (a *App) Config() (*config.Set, error) {
	if a.cfg == nil {
		ws := a.Workspace()
		if err := a.checkWorkspace(); err != nil {
			return nil, err
		}
		// Through the derived cache: a configuration nobody changed is
		// decoded, not parsed again (config.LoadCached).
		set, err := config.LoadCached(ws.ConfigFile(), ws.WorkflowsDir(), ws.ConfigCacheFile(), Version)
		if err != nil {
			return nil, err
		}
		a.cfg = set
		a.warnEach(set.Config.Warnings...)
	}
	return a.cfg, nil
}

// Locks returns the process's locker, made on first call: stale after $AGENTX_LOCK_STALE_MS,
// else [clarify] lock_stale_seconds if Config was loaded before, else 30 s (lockOptions).
func (a *App) Locks() *lock.Locker {
	if a.locks == nil {
		a.locks = lock.New(a.lockOptions())
	}
	return a.locks
}

// lockOptions are the process's lock settings (Locks).
func (a *App) lockOptions() lock.Options {
	stale := 0
	if a.cfg != nil {
		stale = a.cfg.Config.Clarify.LockStaleSeconds
	}
	return lock.Options{Clock: a.Clock, Agent: a.Getenv("AGENTX_AGENT"), BeforeAcquire: a.armSignals}.WithEnv(a.Getenv, stale)
}

// Ledgers returns the ledger store.
func (a *App) Ledgers() *ledger.Store {
	return &ledger.Store{WS: a.Workspace(), Locks: a.Locks()}
}

// Events returns the event log.
func (a *App) Events() *events.Log {
	return &events.Log{Path: a.Workspace().EventsFile(), Locks: a.Locks(), Clock: a.Clock}
}

// Router returns the hub wired to this workspace.
func (a *App) Router() (*router.Router, error) {
	if a.rt != nil {
		return a.rt, nil
	}
	cfg, err := a.Config()
	if err != nil {
		return nil, err
	}
	ws := a.Workspace()
	a.rt = router.New(router.Options{
		WS: ws, Ledgers: a.Ledgers(), Locks: a.Locks(), Config: cfg, Clock: a.Clock, Events: a.Events(),
		Responder: &responder.Exec{Responders: cfg.Config.Responders, Dir: ws.Root, ConfigFile: ws.ConfigFile()},
		Warn:      func(format string, args ...any) { a.warn(format, args...) },
		Audit:     a.AuditTrail(),
		Settled:   a.rememberResolved, // settled.go
	})
	return a.rt, nil
}

func parseVersion(a *App, args []string) (*jsonOnlyOptions, error) {
	return parseJSONOnly("version", "version [--json]")(a, args)
}

func runVersion(_ context.Context, a *App, o *jsonOnlyOptions) error {
	// The build stamp is read once (debug.ReadBuildInfo parses it).
	v := buildVersion()
	return a.emit(o.JSON, v.Doc(), "agentx-hook "+v.Line()+"\n")
}
