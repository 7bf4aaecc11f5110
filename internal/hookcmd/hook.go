package hookcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/recall"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const hookUsage = `hook start  --agent A [--issue N] [--format text|json|claude|codex] [--strict] [--deadline D]
       agentx-hook hook finish --agent A [--issue N] [--format text|json] [--summary-file F] [--strict] [--deadline D]

Agent lifecycle hooks. Both run the monitor. start marks the agent working and
prints what it must know: clarifications waiting for its answer, its own
requests with their latest answers, escalations on its issue. finish marks the
agent done (or keeps it blocked while its blocking request still waits).

The issue is --issue, else $AGENTX_ISSUE, else the branch name (42-fix-login,
feat/42-x, issue-42, gh-42), else none. The agent is --agent, else
$AGENTX_AGENT, else the host payload's agent_type (Claude Code names the agent
of ` + "`claude --agent NAME`" + `), else [hooks] default_agent (init writes
engineer), else engineer; it must match [a-z0-9][a-z0-9-]* and be one the
workflows or config name. A JSON payload on stdin (Claude Code's session_id,
transcript_path, hook_event_name, cwd) is read when present, within 200 ms
for a first byte and 500 ms after it.

Hooks never get in the way: whatever goes wrong (a corrupt file, a lock
timeout, a misspelt flag, an unknown agent, no .agentx/ found) prints one
warning on stderr and exits 0, so an agent or git is never blocked by it.
Each hook has one overall deadline, --deadline, else [hooks] deadline in
agentx.toml, else 10s: steps not done by then (monitor, agent status,
memory recall or capture, state sync) are skipped and named in one warning.
Only --strict exits non-zero: 1 while a blocking clarification is open, 2 for
a bad command line.`

// hookInput is what a lifecycle hook knows about the session.
type hookInput struct {
	Event    string // "start" or "finish"
	Agent    string
	Issue    int
	HasIssue bool
	Format   string
	Strict   bool
	// Stdin is the payload or session summary on stdin, parsed once: its
	// cwd places the workspace, its event says whether the session goes
	// on, and `hook finish` captures it.
	Stdin capture.Input
	// SummaryFile is the --summary-file path (`hook finish` captures it
	// when stdin holds no host payload).
	SummaryFile string
	// run is the hook's overall deadline: each step goes through it.
	run *hookRun
}

// hookSection is one `## Title` block of a hook's output. Sections keep
// their order (memory recall adds "Memory Recall" to `hook start`'s).
type hookSection struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// A hook reads its payload within a short budget, so a stdin that stays
// open (a pipe whose writer never closes it) never hangs the host: it
// waits hookStdinFirst for a first byte, then at most hookStdinRest for
// the rest, and stops early at EOF or once the bytes read form one whole
// JSON document (a host payload).
const (
	hookStdinFirst = 200 * time.Millisecond
	hookStdinRest  = 500 * time.Millisecond
)

// hookOptions is the command line of `hook start` and `hook finish`.
type hookOptions struct {
	Event       string // start or finish
	Agent       string // --agent, else $AGENTX_AGENT
	Issue       string // --issue as given (resolved when run)
	Format      string // text, json, claude or codex (--json is --format json)
	Strict      bool
	SummaryFile string
	Deadline    time.Duration // --deadline (0: [hooks] deadline, else 10 s)
}

func (o *hookOptions) jsonMode() bool { return o.Format == "json" }

func runHook(ctx context.Context, a *App, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprintf(a.Stdout, "Usage: agentx-hook %s\n", hookUsage)
			return errHelp
		}
		return a.hookMisconfigured("", a.unknown(usagef("hook needs start or finish"), args), hasStrict(args))
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

// hookSkippedDoc is a hook's --json document when it did nothing: one
// document, exit 0, and no "error" key (a failure document means a
// non-zero exit).
type hookSkippedDoc struct {
	Hook string `json:"hook"`
	schemaVersion
	Skipped string `json:"skipped"`
}

// hookSkipped is a hook that does nothing: one warning line, and with
// --json the one document saying why.
func (a *App) hookSkipped(jsonMode bool, event, why string) {
	a.warn("%s", why)
	if jsonMode {
		_ = a.writeDoc(&hookSkippedDoc{Hook: event, Skipped: why})
	}
}

// hookSkippedHost says that a hook did nothing in the host's own channel
// too: Claude Code hides a successful hook's stderr, so a user would only
// see nothing happen. SessionStart's JSON carries a systemMessage (shown
// to the user) and the same line as context for the agent.
func (a *App) hookSkippedHost(format, event, why string) {
	if event != "start" || format != "claude" && format != "codex" {
		return
	}
	msg := "agentx did nothing this session: " + why
	_ = writeSessionStartWith(a.Stdout, msg, msg)
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
	flags.StringVar(&o.Format, "format", "text", "output `form`: text, json, claude or codex (start: the host's SessionStart JSON)")
	flags.BoolVar(&o.Strict, "strict", false, "exit 1 while a blocking clarification of the agent is open (and 2 for a bad command line)")
	flags.StringVar(&o.SummaryFile, "summary-file", "", "finish: a session summary `file` for memory capture")
	flags.DurationVar(&o.Deadline, "deadline", 0, "the hook's overall `deadline` (default: [hooks] deadline, else 10s); steps not done by then are skipped and named")
	asJSON := flags.Bool("json", false, "same as --format json")
	pos, err := parse(flags, args[1:])
	if *asJSON {
		o.Format = "json"
	}
	if err != nil {
		return o, err
	}
	if len(pos) > 0 {
		return o, usagef("hook %s takes no positional arguments (got %q)", event, pos[0])
	}
	switch o.Format {
	case "text", "json", "claude", "codex":
	default:
		return o, usagef("--format must be text, json, claude or codex (got %q)", o.Format)
	}
	if o.Deadline < 0 {
		return o, usagef("--deadline must be positive (got %s)", o.Deadline)
	}
	if o.Agent == "" {
		o.Agent = a.Getenv("AGENTX_AGENT")
	}
	return o, nil
}

func runHookEvent(ctx context.Context, a *App, o *hookOptions) error {
	began := time.Now() // the deadline counts from here, payload read included
	event := o.Event
	in := &hookInput{Event: event, Agent: o.Agent, Format: o.Format, Strict: o.Strict, SummaryFile: o.SummaryFile}
	payloadAgent := a.readHookStdin(in)
	if in.Agent == "" {
		// Claude Code names the agent a session runs as (claude --agent
		// NAME) in its payload's agent_type: one shared settings file then
		// serves every role.
		in.Agent = payloadAgent
	}
	if in.Agent == "" {
		// Nothing named the agent (Codex and Copilot payloads never do):
		// the workspace's default, so a first session works with no setup
		// beyond `setup`.
		in.Agent = config.FallbackAgent
		if cfg, err := a.Config(); err == nil {
			in.Agent = cfg.Config.Hooks.DefaultAgentOr()
		}
	}
	if cwd := in.Stdin.Payload.Cwd; cwd != "" && filepath.IsAbs(cwd) && a.rootFlag == "" && a.Getenv("AGENTX_ROOT") == "" && a.ws == nil {
		if fi, err := os.Stat(cwd); err == nil && fi.IsDir() {
			a.Cwd = cwd // the agent's project, wherever the hook runs from
		}
	}
	if why, ok := a.inWorkspace("hook " + event); !ok {
		a.hookSkipped(o.jsonMode(), event, why)
		a.hookSkippedHost(o.Format, event, why)
		return nil
	}
	if why, ok := a.agentAccepted(in.Agent); !ok {
		a.hookSkipped(o.jsonMode(), event, why)
		a.hookSkippedHost(o.Format, event, why)
		return nil
	}
	issue, ok, err := a.issueFor(ctx, o.Issue)
	if err != nil {
		if o.Issue != "" {
			return usagef("--issue: %v", err)
		}
		a.warn("ignoring the issue from the environment: %v", err)
	}
	in.Issue, in.HasIssue = issue, ok && err == nil

	return a.failOpen(event, func() error {
		run, end := a.startHookRun(ctx, "hook "+event, began, a.hookDeadline(o.Deadline))
		defer end()
		defer a.reportHookRun(run)
		in.run = run
		if event == "start" {
			return a.hookStart(run.ctx, in)
		}
		return a.hookFinish(run.ctx, in)
	})
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

// beforeHook and afterHook are GitHub Mode's state branch around a hook:
// `hook start` fetches and merges the shared state before it reads ledgers
// and memory; `hook finish` pushes what the session changed after it
// captured at the session's end. Local Mode keeps the state in the working tree: both return at
// once. Each stays within [github] sync_budget and fails open with one
// warning line (sync.go), as every hook failure does.
func (a *App) beforeHook(in *hookInput) {
	if in.Event == "start" && a.githubMode() {
		in.run.step("state pull", func(ctx context.Context) { a.StatePull(ctx, 0) })
	}
}

func (a *App) afterHook(in *hookInput) {
	// A mid-session payload (Claude Code's Stop fires after every reply)
	// does not push: the session's end does, once.
	if in.Event == "finish" && !in.Stdin.MidSession() {
		if a.githubMode() {
			in.run.step("state push", func(ctx context.Context) { a.StatePush(ctx, 0) })
		}
		in.run.step("checkpoint", func(ctx context.Context) { a.hookCheckpoint(ctx, in) })
	}
}

// githubMode reports whether the workspace shares its state on the state
// branch (a configuration that does not load: no).
func (a *App) githubMode() bool {
	cfg, err := a.Config()
	return err == nil && cfg.Config.Mode == "github"
}

// agentAccepted checks the agent name as `memory add` does, and against
// the agents the workflows and config know (when they name any): a typo
// in a host's hook settings would otherwise be written into agent status
// for good and report "nothing waits for you" forever. A rejected name is
// one warning and the hook does nothing (hooks fail open); why says so.
func (a *App) agentAccepted(agent string) (why string, ok bool) {
	if err := validate.Agent("agent", agent); err != nil {
		return fmt.Sprintf("%v; nothing done (check --agent or $AGENTX_AGENT)", err), false
	}
	cfg, err := a.Config()
	if err != nil {
		return "", true // a broken config is reported by the hook body
	}
	known := cfg.KnownAgents()
	if len(known) == 0 || known[agent] {
		return "", true
	}
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Sprintf("agent %q is not in the workflows or config (known: %s); nothing done (check --agent or $AGENTX_AGENT)", agent, strings.Join(names, ", ")), false
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

// readHookStdin reads an optional payload within the stdin budget and
// returns the agent the payload names (Claude Code's agent_type), if any.
// A terminal is never read.
func (a *App) readHookStdin(in *hookInput) string {
	if a.Stdin == nil {
		return ""
	}
	if f, ok := a.Stdin.(*os.File); ok {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return ""
		}
	}
	data := readWithin(a.Stdin, 1<<20, hookStdinFirst, hookStdinRest)
	if len(data) == 0 {
		return ""
	}
	in.Stdin = capture.ParseInput(data)
	var named struct {
		AgentType string `json:"agent_type"`
	}
	if capture.LooksLikePayload(data) && json.Unmarshal(data, &named) == nil {
		return named.AgentType
	}
	return ""
}

// readWithin reads r until EOF, limit bytes, or one whole JSON document,
// giving up first after nothing arrived and rest after the first byte.
// The reading goroutine is left behind on a stdin that never closes; the
// process ends soon after a hook anyway.
func readWithin(r io.Reader, limit int, first, rest time.Duration) []byte {
	chunks := make(chan []byte, 16)
	go func() {
		defer close(chunks)
		buf := make([]byte, 32<<10)
		total := 0
		for total < limit {
			n, err := r.Read(buf)
			if n > 0 {
				chunks <- append([]byte(nil), buf[:n]...)
				total += n
			}
			if err != nil {
				return
			}
		}
	}()
	var data []byte
	timer := time.NewTimer(first)
	defer timer.Stop()
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				return data
			}
			if len(data) == 0 {
				timer.Reset(rest)
			}
			data = append(data, c...)
			if len(data) >= limit {
				return data[:limit]
			}
			if capture.LooksLikePayload(data) && json.Valid(data) {
				return data
			}
		case <-timer.C:
			return data
		}
	}
}

// hookView is what a hook found for its agent.
type hookView struct {
	report      *monitor.Report
	waiting     []ledger.Record // waiting for the agent's answer
	requests    []ledger.Record // the agent's own open requests
	escalations []ledger.Record // escalated records on the agent's issue
	status      string
	// unchecked: the deadline passed before the ledgers were read, so
	// nothing can be said about what waits.
	unchecked bool
}

// view runs the monitor and collects the agent's clarifications. Each part
// fails open on its own: a failed check still lists what can be read.
func (a *App) hookView(ctx context.Context, in *hookInput) *hookView {
	v := &hookView{}
	scanner := monitor.NewScanner(a.Workspace())
	var open []ledger.Record
	if rt, err := a.Router(); err != nil {
		// Without a configuration nothing can act, but the ledgers still
		// say what waits for the agent.
		a.warn("agentx hook %s: %v", in.Event, err)
	} else if rep, err := (&monitor.Monitor{Router: rt, Scanner: scanner}).Check(ctx); err != nil {
		a.warn("agentx hook %s: monitor: %v", in.Event, err)
	} else {
		v.report = rep
		a.printWarnings(rep, true)
		open = rep.Open
	}
	if v.report == nil || len(v.report.Actions) > 0 {
		// No check ran, or it changed records: list them as they are now.
		if scan, err := scanner.Scan(); err == nil {
			open = scan.Open
		} else if v.report == nil {
			a.warn("agentx hook %s: %v", in.Event, err)
		}
	}
	v.waiting, v.requests = ledger.Inbox(open, in.Agent)
	if in.HasIssue {
		l, err := a.Ledgers().Load(in.Issue)
		if err != nil {
			a.warn("agentx hook %s: %v", in.Event, err)
		} else {
			for _, r := range l.Clarifications {
				if r.Status == ledger.Escalated {
					v.escalations = append(v.escalations, r)
				}
			}
		}
	}
	return v
}

// blockingWait returns the agent's blocking request that still waits, if any.
func (v *hookView) blockingWait() *ledger.Record {
	for i := range v.requests {
		if r := &v.requests[i]; r.Blocking && r.Status.Waiting() {
			return r
		}
	}
	return nil
}

// setStatus updates the agent's status: want, unless its own blocking
// request still waits (then it stays blocked-clarification on it).
func (a *App) setHookStatus(ctx context.Context, in *hookInput, v *hookView, want string) {
	blocked := v.blockingWait()
	v.status = want
	if blocked != nil {
		v.status = agentstatus.BlockedClarification
	}
	err := agentstatus.Update(ctx, a.Locks(), a.Workspace().AgentStatusFile(), func(f *agentstatus.File) error {
		s := f.Ensure(in.Agent)
		s.Status = v.status
		if in.HasIssue {
			s.Issue = agentstatus.Ptr(in.Issue)
		}
		s.LastActivity = clock.Format(a.Clock.Now())
		s.RespondingTo = nil
		if blocked != nil {
			s.Issue = agentstatus.Ptr(blocked.IssueNumber)
			s.ClarificationID = agentstatus.Ptr(blocked.ID)
			s.WaitingOn = agentstatus.Ptr(blocked.To)
		} else {
			s.ClarificationID, s.WaitingOn = nil, nil
		}
		return nil
	})
	if err != nil {
		v.status = "" // not what agent-status.json says
		a.warn("agentx hook %s: agent status not updated: %v", in.Event, err)
	}
}

func (a *App) hookStart(_ context.Context, in *hookInput) error {
	a.beforeHook(in)
	v := &hookView{unchecked: true}
	in.run.step("monitor", func(ctx context.Context) { v = a.hookView(ctx, in) })
	in.run.step("agent status", func(ctx context.Context) { a.setHookStatus(ctx, in, v, agentstatus.Working) })
	sections := a.clarificationSections(in, v)
	if s, ok := a.renamedSection(); ok {
		sections = append([]hookSection{s}, sections...)
	}
	mon, hasMon := monitorSection(v.report)
	// What the other sections take of the host's ceiling is measured, not
	// guessed, so the recall fills exactly the room that is left.
	rest := sections
	if hasMon {
		rest = append(append([]hookSection(nil), sections...), mon)
	}
	in.run.step("memory recall", func(ctx context.Context) {
		sections = append(sections, a.hookRecall(ctx, in, len(hookText(in, v.status, rest)))...)
	})
	if hasMon {
		sections = append(sections, mon)
	}
	strict := a.strictCheck(in, v)
	if err := a.writeHookOutput(in, v, sections, strict); err != nil {
		return err
	}
	return strict
}

func (a *App) hookFinish(_ context.Context, in *hookInput) error {
	defer a.afterHook(in)
	v := &hookView{unchecked: true}
	in.run.step("monitor", func(ctx context.Context) { v = a.hookView(ctx, in) })
	want := agentstatus.Done
	if in.Stdin.MidSession() {
		want = agentstatus.Working // the session goes on: capture, but not done
	}
	in.run.step("agent status", func(ctx context.Context) { a.setHookStatus(ctx, in, v, want) })
	var sections []hookSection
	captured := false
	in.run.step("memory capture", func(ctx context.Context) {
		captured = true
		if s, ok, err := a.hookCapture(ctx, in); err != nil {
			a.warn("agentx hook finish: memory capture: %v", err)
		} else if ok {
			sections = append(sections, s)
		}
	})
	if !captured {
		a.spoolLate(in)
	}
	if r := v.blockingWait(); r != nil {
		sections = append(sections, hookSection{Title: "Still waiting", Body: fmt.Sprintf(
			"- %s to %s (%s): %s\n  %s stays blocked-clarification until it is answered.", r.ID, r.To, r.Status, r.Topic, in.Agent)})
	}
	if len(v.waiting) > 0 {
		sections = append(sections, waitingSection(v.waiting, a.cliName()))
	}
	if s, ok := monitorSection(v.report); ok {
		sections = append(sections, s)
	}
	if in.Format == "claude" || in.Format == "codex" {
		in.Format = "text" // Claude Code reads no context from session-end hooks
	}
	strict := a.strictCheck(in, v)
	if err := a.writeHookOutput(in, v, sections, strict); err != nil {
		return err
	}
	return strict
}

func (a *App) cliName() string { return "agentx-hook" }

// clarificationSections are hook start's view of the protocol.
func (a *App) clarificationSections(in *hookInput, v *hookView) []hookSection {
	cli := a.cliName()
	var out []hookSection
	if len(v.waiting) > 0 {
		out = append(out, waitingSection(v.waiting, cli))
	}
	if len(v.requests) > 0 {
		var b strings.Builder
		for _, r := range v.requests {
			tag := ""
			if r.Blocking {
				tag = ", BLOCKING"
			}
			fmt.Fprintf(&b, "- %s to %s (round %d/%d, %s%s): %s\n", r.ID, r.To, r.Round, r.MaxRounds, r.Status, tag, r.Topic)
			if ans := r.LastOf(ledger.Answer); ans != nil {
				fmt.Fprintf(&b, "  Latest answer (%s): %s\n", ans.From, shorten.Line(ans.Body, 600))
			}
			if r.Status == ledger.Answered {
				fmt.Fprintf(&b, "  Next: %s clarify resolve %s --body \"<what you decided>\"  (or clarify ask %s --body \"<follow-up>\")\n", cli, r.ID, r.ID)
			} else {
				fmt.Fprintf(&b, "  Waiting for %s since %s.\n", r.To, r.Created)
			}
		}
		out = append(out, hookSection{Title: "Your open requests", Body: strings.TrimRight(b.String(), "\n")})
	}
	if len(v.escalations) > 0 {
		var b strings.Builder
		for _, r := range v.escalations {
			fmt.Fprintf(&b, "- %s %s -> %s: %s\n", r.ID, r.From, r.To, r.Topic)
			if e := r.LastOf(ledger.Escalation); e != nil {
				fmt.Fprintf(&b, "  %s\n", strings.SplitN(e.Body, "\n", 2)[0])
			}
			fmt.Fprintf(&b, "  A person settles it: %s clarify resolve %s --body \"<decision>\"\n", cli, r.ID)
		}
		out = append(out, hookSection{Title: fmt.Sprintf("Escalations on issue #%d", in.Issue), Body: strings.TrimRight(b.String(), "\n")})
	}
	if len(out) == 0 && v.unchecked {
		out = append(out, hookSection{Title: "Clarifications", Body: "Not checked: the hook's deadline passed first. `" + cli + " clarify` lists what is open."})
	} else if len(out) == 0 {
		out = append(out, hookSection{Title: "Clarifications", Body: "Nothing waits for you: no open clarifications involve " + in.Agent + "."})
	}
	return out
}

// maxWaitingShown bounds the questions a hook prints in full: blocking
// ones come first, and the rest are counted with the command that lists
// them, so a flood of questions cannot crowd out everything else.
const maxWaitingShown = 10

func waitingSection(recs []ledger.Record, cli string) hookSection {
	var b strings.Builder
	recs = append([]ledger.Record(nil), recs...)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Blocking && !recs[j].Blocking })
	hidden := 0
	if len(recs) > maxWaitingShown {
		hidden = len(recs) - maxWaitingShown
		recs = recs[:maxWaitingShown]
	}
	for _, r := range recs {
		tag := ""
		if r.Blocking {
			tag = ", BLOCKING: " + r.From + " cannot go on without it"
		}
		fmt.Fprintf(&b, "- %s from %s (round %d/%d, %s%s): %s\n", r.ID, r.From, r.Round, r.MaxRounds, r.Status, tag, r.Topic)
		if q := r.LastOf(ledger.Question); q != nil {
			fmt.Fprintf(&b, "  Question: %s\n", shorten.Line(q.Body, 600))
		}
		fmt.Fprintf(&b, "  Answer: %s clarify answer %s --body \"<answer>\"\n", cli, r.ID)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "- %d more wait for your answer: %s clarify --json lists them all\n", hidden, cli)
	}
	return hookSection{Title: "Clarifications waiting for your answer", Body: strings.TrimRight(b.String(), "\n")}
}

func monitorSection(rep *monitor.Report) (hookSection, bool) {
	if rep == nil {
		return hookSection{}, false
	}
	var b strings.Builder
	for _, act := range rep.Actions {
		if act.Kind == monitor.ActSkipped {
			continue
		}
		fmt.Fprintf(&b, "- %s %s: %s\n", act.ID, strings.ReplaceAll(act.Kind, "-", " "), act.Detail)
	}
	if b.Len() == 0 {
		return hookSection{}, false
	}
	return hookSection{Title: "Monitor", Body: strings.TrimRight(b.String(), "\n")}, true
}

// fitHost cuts a hook's context to what the host shows (Claude Code:
// 10,000 characters, more becomes a preview; Codex: about 2,500 tokens).
// Recall already sizes itself to the room left, so this only bites when the
// clarifications alone overflow; the note says how to see everything.
func fitHost(text, host string) string {
	limit := recall.ClaudeMaxChars
	if host == "codex" {
		limit = recall.CodexMaxTokens * recall.CharsPerToken
	}
	if len(text) <= limit {
		return text
	}
	note := "\n[agentx: cut to the host's limit; run `agentx-hook hook start` in a terminal to see everything]\n"
	cut := limit - len(note)
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + note
}

// hookText renders the sections as one markdown document.
func hookText(in *hookInput, status string, sections []hookSection) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# agentx: %s", in.Agent)
	if in.HasIssue {
		fmt.Fprintf(&b, " on issue #%d", in.Issue)
	}
	if status != "" {
		fmt.Fprintf(&b, " (status: %s)", status)
	}
	b.WriteString("\n")
	for _, s := range sections {
		fmt.Fprintf(&b, "\n## %s\n%s\n", s.Title, s.Body)
	}
	return b.String()
}

// hookDoc is `hook start|finish --json`.
type hookDoc struct {
	Agent string `json:"agent"`
	// Blocked is --strict's verdict, in the one document (the exit status
	// is 1 and stderr says it too).
	Blocked     *errorBody       `json:"blocked,omitempty"`
	Escalations []ledger.Record  `json:"escalations"`
	Hook        string           `json:"hook"`
	Issue       *int             `json:"issue"`
	Monitor     []monitor.Action `json:"monitor"`
	Requests    []ledger.Record  `json:"requests"`
	schemaVersion
	Sections []hookSection   `json:"sections"`
	Status   string          `json:"status"`
	Text     string          `json:"text"`
	Waiting  []ledger.Record `json:"waiting"`
}

// writeSessionStart writes text in the SessionStart hook output form of
// Claude Code (which Codex takes too). It is the host's format, not one of
// our --json documents: no schema_version.
func writeSessionStart(w io.Writer, text string) error { return writeSessionStartWith(w, text, "") }

// writeSessionStartWith is writeSessionStart with a systemMessage, which
// the host shows the user ("" for none).
func writeSessionStartWith(w io.Writer, text, systemMessage string) error {
	doc := map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "SessionStart", "additionalContext": text}}
	if systemMessage != "" {
		doc["systemMessage"] = systemMessage
	}
	return writeJSON(w, doc)
}

func (a *App) writeHookOutput(in *hookInput, v *hookView, sections []hookSection, strict error) error {
	text := hookText(in, v.status, sections)
	switch in.Format {
	case "claude", "codex": // Codex takes Claude Code's SessionStart form
		text = fitHost(text, in.Format)
		return writeSessionStart(a.Stdout, text)
	case "json":
		var issue *int
		if in.HasIssue {
			issue = &in.Issue
		}
		var actions []monitor.Action
		if v.report != nil {
			actions = v.report.Actions
		}
		var blocked *errorBody
		var se *strictError
		if errors.As(strict, &se) {
			var pe *errcode.Error
			hint := ""
			if errors.As(se.err, &pe) {
				hint = pe.Hint
			}
			blocked = &errorBody{Code: string(errcode.CodeOf(se.err)), Message: se.Error(), Hint: hint}
		}
		return a.writeDoc(&hookDoc{Hook: in.Event, Agent: in.Agent, Blocked: blocked,
			Issue: issue, Status: v.status, Waiting: nonNil(v.waiting), Requests: nonNil(v.requests),
			Escalations: nonNil(v.escalations), Monitor: nonNil(actions), Sections: nonNil(sections), Text: text})
	default:
		_, err := io.WriteString(a.Stdout, text)
		return err
	}
}

// strictCheck is --strict: exit 1 while the agent waits on a blocking
// clarification or one waits for its answer.
func (a *App) strictCheck(in *hookInput, v *hookView) error {
	if !in.Strict {
		return nil
	}
	if r := v.blockingWait(); r != nil {
		return &strictError{errcode.New(errcode.InvalidInput, "%s is blocked: clarification %s still waits on %s", in.Agent, r.ID, r.To).
			WithHint(fmt.Sprintf("wait for the answer, or settle it: %s clarify resolve %s", a.cliName(), r.ID))}
	}
	for _, r := range v.waiting {
		if r.Blocking {
			return &strictError{errcode.New(errcode.InvalidInput, "%s owes an answer: blocking clarification %s from %s is open", in.Agent, r.ID, r.From).
				WithHint(fmt.Sprintf("%s clarify answer %s --body \"<answer>\"", a.cliName(), r.ID))}
		}
	}
	return nil
}

// lateSpoolBudget bounds the spool write of a capture whose hook ran out of
// time first: one small atomic write, past the deadline by design.
const lateSpoolBudget = 2 * time.Second

// spoolLate keeps a session's capture when the hook's deadline passed
// before its capture step (a monitor or status write stalled behind a
// busy lock): the payload or summary is still spooled, sanitised as
// always, and the next `hook start` finishes it. Losing what a session
// learned to a slow side effect would be the worse failure.
func (a *App) spoolLate(in *hookInput) {
	ctx, cancel := context.WithTimeout(context.Background(), lateSpoolBudget)
	defer cancel()
	a.spoolOnly = true
	defer func() { a.spoolOnly = false }()
	_, ok, err := a.hookCapture(ctx, in)
	switch {
	case err != nil:
		a.warn("agentx hook finish: memory capture not spooled either: %v", err)
	case ok && in.run != nil:
		in.run.rename("memory capture", "memory capture (spooled: the next hook start stores it)")
	}
}
