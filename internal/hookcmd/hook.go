package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/hooklog"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/session"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
)

const hookUsage = `hook start  --agent A [--issue N] [--format text|json|claude|codex|copilot] [--strict] [--deadline D]
       agentx-hook hook finish --agent A [--issue N] [--format text|json|codex] [--event E] [--summary-file F] [--strict] [--deadline D]
       agentx-hook hook deliver [--agent A] [--format text|json|claude|codex|copilot] [--event E]

Agent lifecycle hooks. deliver (hook deliver --help) is what the hosts run
mid-session: the answers to the agent's own questions, once. start and finish
run the monitor. start marks the agent working and
prints what it must know: clarifications waiting for its answer, its own
requests with their latest answers, escalations on its issue. finish marks the
agent done (or keeps it blocked while its blocking request still waits).

The issue is --issue, else $AGENTX_ISSUE, else the branch name (42-fix-login,
feat/42-x, issue-42, gh-42), else none. The agent is --agent, else
$AGENTX_AGENT, else the host payload's agent_type (Claude Code names the agent
of ` + "`claude --agent NAME`" + `), else [hooks] default_agent (init writes
engineer), else engineer; it must match [a-z0-9][a-z0-9-]* and be one the
workflows or config name. A JSON payload on stdin (Claude Code's session_id,
transcript_path, hook_event_name, cwd) is read when present: its first byte
is waited for up to the deadline (less a fifth, at most 1s, kept for the
capture's spool write), the rest for 500 ms. A stdin left open with nothing on
it is a warning, and finish then neither captures nor marks the agent done.
--event names the host event a payload that names none came from (Copilot
CLI's agentStop and sessionEnd look alike): only a session end marks the agent
done and pushes, checkpoints and applies retention.

Hooks never get in the way: whatever goes wrong (a corrupt file, a lock
timeout, a misspelt flag, an unknown agent, no .agentx/ found) prints one
warning on stderr and exits 0, so an agent or git is never blocked by it.
Each hook has one overall deadline, --deadline, else [hooks] deadline in
agentx.toml, else 10s: steps not done by then (monitor, agent status,
memory recall or capture, state sync) are skipped and named in one warning.
Only --strict exits non-zero: 1 while a blocking clarification is open, 2 for
a bad command line.`

// hookOptions is the command line of `hook start` and `hook finish`.
type hookOptions struct {
	Event       string // start or finish
	Agent       string // --agent, else $AGENTX_AGENT
	agentFlag   bool   // Agent came from --agent (a bad one is a bad command line)
	Issue       string // --issue as given (resolved when run)
	formatFlag         // text, json, claude or codex
	Strict      bool
	SummaryFile string
	Deadline    time.Duration // --deadline (0: [hooks] deadline, else 10 s)
	HostEvent   string        // --event: the host event, when the payload names none
}

func runHook(ctx context.Context, a *App, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprintf(a.Stdout, "Usage: agentx-hook %s\n", hookUsage)
			printExamples(a.Stdout, "hook")
			return errHelp
		}
		return a.hookMisconfigured("", a.unknown(usagef("hook needs start, finish or deliver"), args), hasStrict(args))
	}
	if args[0] == "deliver" {
		if len(args) > 1 && (args[1] == "--help" || args[1] == "-h") {
			fmt.Fprintf(a.Stdout, "Usage: agentx-hook %s\n", hookDeliverUsage)
			printExamples(a.Stdout, "hook deliver")
			return errHelp
		}
		return a.hookMisconfigured("deliver", wire(parseHookDeliver, runHookDeliver)(ctx, a, args[1:]), false)
	}
	err := wire(parseHook, runHookEvent)(ctx, a, args)
	var se *strictError
	if errors.As(err, &se) {
		// The document (if any) already carries the verdict: the error
		// goes to stderr only, so --json stays one document.
		return se
	}
	event := ""
	if args[0] == "start" || args[0] == "finish" {
		event = args[0]
	}
	return a.hookMisconfigured(event, err, hasStrict(args))
}

// hookAccepts checks that the hook runs in a workspace and for an agent
// the workflows know; bad says the agent was refused (not the workspace).
func (a *App) hookAccepts(event, agent string) (why string, ok, bad bool) {
	if why, ok = a.inWorkspace("hook " + event); !ok {
		return why, false, false
	}
	cfg, _ := a.Config() // a broken config is reported by the hook body
	why, ok = session.AgentAccepted(agent, cfg)
	return why, ok, !ok
}

// strictAgent is the usage error of an agent refused (bad) when --strict
// asked for exit 2 on a bad command line and the agent came from --agent
// (one from the environment or the payload is not the command line's).
func (o *hookOptions) strictAgent(bad bool, agent, why string) error {
	if bad && o.Strict && o.agentFlag && agent == o.Agent {
		return usagef("--agent: %s", strings.TrimPrefix(why, "agent: "))
	}
	return nil
}

// hasStrict reports whether a hook's command line asks for --strict.
func hasStrict(args []string) bool {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "--strict" || arg == "-strict" || arg == "--strict=true" || arg == "-strict=true" {
			return true
		}
	}
	return false
}

// hookMisconfigured turns a hook's failure into one warning and exit 0:
// Claude Code and Codex read exit 2 from a Stop hook as "block", so a
// misspelt flag in a host's settings must not stop the agent. With
// --strict the caller asked to be stopped, and a usage error is one.
func (a *App) hookMisconfigured(event string, err error, strict bool) error {
	if err == nil || errors.Is(err, errHelp) || strict {
		return err
	}
	var jf *jsonFailure
	a.hookSkipped(errors.As(err, &jf), event, fmt.Sprintf("agentx hook: %s; nothing done", hookErrText(err)))
	return nil
}

// hookSkipped is a hook that does nothing: one warning line, and with
// --json the one document saying why.
func (a *App) hookSkipped(jsonMode bool, event, why string) {
	a.warn("%s", why)
	if jsonMode {
		_ = a.writeDoc(&session.SkippedDoc{Hook: event, Skipped: why})
	}
}

// hookSkippedHost says that a hook did nothing in the host's own channel
// too: Claude Code hides a successful hook's stderr, so a user would only
// see nothing happen. SessionStart's JSON carries a systemMessage (shown
// to the user) and the same line as context for the agent.
func (a *App) hookSkippedHost(format, event, why string) {
	if doc, ok := session.SkippedNotice(format, event, why); ok {
		_, _ = a.Stdout.Write(doc)
	}
}

func hookErrText(err error) string {
	var ue *usageError
	if errors.As(err, &ue) {
		return ue.msg
	}
	return err.Error()
}

// parseHook reads `hook EVENT [flags]`.
func parseHook(a *App, args []string) (*hookOptions, error) {
	event := args[0]
	if event != "start" && event != "finish" {
		return nil, a.unknown(usagef("unknown hook %q (start, finish)", event), args[1:])
	}
	o := &hookOptions{Event: event}
	flags := newFlags(a, "hook "+event, hookUsage)
	flags.StringVar(&o.Agent, "agent", "", "the agent `name` (else $AGENTX_AGENT, else the host payload's agent_type)")
	flags.StringVar(&o.Issue, "issue", "", "issue `N` (else $AGENTX_ISSUE, else the branch name)")
	o.register(flags, "text", "output `form`: text, json, claude, codex or copilot (start: the host's sessionStart JSON)")
	flags.BoolVar(&o.Strict, "strict", false, "exit 1 while a blocking clarification of the agent is open (and 2 for a bad command line)")
	flags.StringVar(&o.SummaryFile, "summary-file", "", "finish: a session summary `file` for memory capture")
	flags.StringVar(&o.HostEvent, "event", "", "the host `event` the hook runs for, when its payload names none (Copilot: agentStop, sessionEnd)")
	flags.DurationVar(&o.Deadline, "deadline", 0, "the hook's overall `deadline`, at most 10m (default: [hooks] deadline, else 10s); steps not done by then are skipped and named")
	pos, err := o.parse(flags, args[1:])
	if err != nil {
		return o, err
	}
	if len(pos) > 0 {
		return o, usagef("hook %s takes no positional arguments (got %q)", event, pos[0])
	}
	switch o.Format {
	case "text", "json", "claude", "codex", "copilot":
	default:
		return o, usagef("--format must be text, json, claude, codex or copilot (got %q)", o.Format)
	}
	if o.Deadline < 0 {
		return o, usagef("--deadline must be positive (got %s)", o.Deadline)
	}
	if o.Deadline > config.MaxHookDeadline {
		return o, usagef("--deadline must be at most %s (got %s)", config.MaxHookDeadline, o.Deadline)
	}
	o.agentFlag = o.Agent != ""
	if o.Agent == "" {
		o.Agent = a.Getenv("AGENTX_AGENT")
	}
	return o, nil
}

func runHookEvent(ctx context.Context, a *App, o *hookOptions) error {
	began := time.Now() // the deadline counts from here, payload read included
	event := o.Event
	in := session.Input{Event: event, Agent: o.Agent, Host: o.Format, Strict: o.Strict, SummaryFile: o.SummaryFile}
	// The configuration's [hooks] deadline is not known before the payload
	// says where the project is: the flag's, else the default, bounds the
	// wait.
	payload, payloadAgent := session.ReadPayload(a.Stdin, session.PayloadWait(payloadDeadline(o.Deadline)))
	payload.SetEvent(o.HostEvent)
	in.Payload = payload
	in.Agent = session.PickAgent(in.Agent, payloadAgent, a.Config)
	if a.rootFlag == "" && a.Getenv("AGENTX_ROOT") == "" && a.ws == nil {
		if dir, ok := session.ProjectDir(in.Payload); ok {
			a.Cwd = dir // the agent's project, wherever the hook runs from
		}
	}
	why, ok, badAgent := a.hookAccepts(event, in.Agent)
	if err := o.strictAgent(badAgent, in.Agent, why); err != nil {
		return err
	}
	if !ok {
		a.hookSkipped(o.jsonMode(), event, why)
		a.hookSkippedHost(o.Format, event, why)
		a.logHookRun(hooklog.Entry{Command: "hook " + event, Host: hookHost(o.Format, payload), Agent: in.Agent,
			Outcome: hooklog.Skipped, Warnings: []string{why}}, began)
		return nil
	}
	issue, hasIssue, err := a.issueFor(ctx, o.Issue)
	if err != nil {
		if o.Issue != "" {
			return usagef("--issue: %v", err)
		}
		a.warn("ignoring the issue from the environment: %v", err)
	}
	in.Issue, in.HasIssue = issue, hasIssue && err == nil
	if in.HasIssue {
		a.hookIssue = in.Issue
	}

	return a.failOpen(event, func() error {
		run, end := a.startHookRun(ctx, began, a.hookDeadline(o.Deadline),
			hooklog.Entry{Command: "hook " + event, Host: hookHost(o.Format, payload), Agent: in.Agent, Issue: in.Issue})
		defer end()
		deps := a.sessionDeps()
		var res *session.Result
		if event == session.EventStart {
			res = session.Start(deps, run, in)
		} else {
			res = session.Finish(deps, run, in)
		}
		var verdict error
		if res.Blocked != nil {
			verdict = &strictError{res.Blocked}
		}
		if event == session.EventFinish {
			// A stop (Codex Stop, Copilot agentStop) with the answer of
			// the agent's blocking question undelivered: the host goes on
			// with it (hookdeliver.go).
			if doc, ok := a.stopDelivery(run.Context(), payload, in.Agent, hookHost(o.Format, payload)); ok {
				_, err := a.Stdout.Write(doc)
				if err == nil {
					err = verdict
				}
				return err
			}
		}
		if event == session.EventFinish && o.Format == "codex" {
			// Codex reads a Stop, PreCompact or SessionEnd hook's stdout
			// as JSON and fails the hook on text: what finish did is in
			// the hook log, and its warnings on stderr.
			return verdict
		}
		if err := a.writeHookOutput(res, verdict); err != nil {
			return err
		}
		return verdict
	})
}

// payloadDeadline bounds the wait for a hook's payload: --deadline, else
// the default deadline.
func payloadDeadline(flag time.Duration) time.Duration {
	if flag > 0 {
		return flag
	}
	return config.DefaultHookDeadline
}

// hookHost names the host in the hook log: the payload's (claude, codex,
// copilot), else the output form (text for a hook run by hand).
func hookHost(format string, in capture.Input) string {
	if h := in.Payload.Host; h != "" {
		return string(h)
	}
	return format
}

// sessionDeps wires the hook session to this workspace.
func (a *App) sessionDeps() *session.Deps {
	cfg, _ := a.Config() // nil: the session acts on nothing and says so
	d := &session.Deps{
		Workspace: a.Workspace(), Locks: a.Locks(), Clock: a.Clock, Config: cfg,
		Router: a.Router, Ledgers: a.Ledgers(), Warn: a.warn, CLI: a.cliName(),
		MonitorWarnings: func(rep *monitor.Report) { a.printWarnings(rep, true) },
		Intake:          a.intakeWith, Recall: a.recallService(), ReadFile: a.readInputFile,
		IndexPending: a.indexRebuild().Pending,
		Pull:         func(ctx context.Context) []statemerge.Rename { return a.stateSyncHook(ctx, 0, true) },
		Push:         func(ctx context.Context) { a.stateSyncHook(ctx, 0, false) },
		Checkpoint:   func(ctx context.Context, reason string) { autoCheckpoint(ctx, a, reason) },
		Retain:       a.retainSlice, StoreAlerts: a.storeAlerts, // retention.go
		Metrics: a.recordMetrics,    // metrics.go
		Settle:  a.catchUpDecisions, // settled.go
		RecordMarks: func(recs []ledger.Record) map[string]string {
			return a.recordMarks(context.Background(), recs) // anchors.go
		},
	}
	return d
}

// logHookRun appends one run to the hook log (.agentx/hook-log.jsonl),
// with the warnings it printed; a log that cannot be written is no reason
// to fail a hook.
func (a *App) logHookRun(e hooklog.Entry, began time.Time) {
	e.Time = a.Clock.Now()
	e.DurationMS = time.Since(began).Milliseconds()
	if e.Warnings == nil {
		e.Warnings = a.warnings
	}
	_ = hooklog.Append(a.Workspace(), e)
}

// inWorkspace reports whether the workspace holds .agentx/. A hook or git
// hook outside one does nothing (it would otherwise create .agentx/ in
// whatever directory the host started it); why is the one line saying so.
func (a *App) inWorkspace(what string) (why string, ok bool) {
	dir := a.Workspace().AgentxDir()
	if err := a.checkWorkspace(); err != nil {
		return fmt.Sprintf("agentx %s: %v; nothing done", what, err), false
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return "", true
	}
	return fmt.Sprintf("agentx %s: no .agentx/ in %s; nothing done (agentx-hook init creates it)", what, a.Workspace().Root), false
}

// strictError is the one failure a hook reports: the caller asked (with
// --strict) to be stopped while a blocking clarification is open.
type strictError struct{ err error }

func (e *strictError) Error() string { return e.err.Error() }
func (e *strictError) Unwrap() error { return e.err }

// failOpen runs a hook body. Our own failures (and panics) become one
// warning and exit 0; only a --strict answer passes through.
func (a *App) failOpen(event string, fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			a.warn("agentx hook %s failed (continuing): internal error: %v", event, p)
			err = nil
		}
	}()
	err = fn()
	var se *strictError
	if err == nil || errors.As(err, &se) {
		return err
	}
	a.warn("agentx hook %s failed (continuing): %v", event, err)
	return nil
}

func (a *App) cliName() string { return "agentx-hook" }

// writeSessionStart writes text in the host's SessionStart form
// (session.SessionStart) with no systemMessage.
func writeSessionStart(w io.Writer, text string) error {
	doc, err := session.SessionStart(text, "")
	if err != nil {
		return err
	}
	_, err = w.Write(doc)
	return err
}

func (a *App) writeHookOutput(res *session.Result, strict error) error {
	switch res.Host {
	case "claude", "codex": // Codex takes Claude Code's SessionStart form
		return writeSessionStart(a.Stdout, res.Text)
	case "copilot":
		doc, err := session.CopilotStart(res.Text)
		if err != nil {
			return err
		}
		_, err = a.Stdout.Write(doc)
		return err
	case "json":
		return a.writeDoc(res.Doc(strict != nil))
	default:
		_, err := io.WriteString(a.Stdout, res.Text)
		return err
	}
}
