// Package session owns an agent's hook session: what `hook start` and
// `hook finish` do between reading the host's payload and printing. Start
// pulls the shared state (GitHub Mode), runs the monitor, marks the agent
// working, finishes captures an earlier hook left in the spool and
// recalls memory within the host's room; Finish runs the monitor, marks
// the agent done (or still blocked), captures the session into memory and
// pushes and checkpoints what changed. Every step runs under the hook's
// one deadline (Run) and fails open: what goes wrong is a warning, never a
// failed hook. The result is the agent's view (Result): the sections to
// show, the text each host reads, the status written and, with Strict,
// the verdict.
//
// The package prints nothing and reads no flags, environment or process
// state: the caller resolves the Input, wires the Deps and prints.
package session

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentx-dev/agentx/internal/core/artifact"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/delivery"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/intake"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/recall"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// The two events of a session.
const (
	EventStart  = "start"
	EventFinish = "finish"
)

// Input is what a hook knows about the session, resolved by the caller.
type Input struct {
	Event    string // EventStart or EventFinish
	Agent    string
	Issue    int
	HasIssue bool
	// Host is the output form: text, json, claude, codex or copilot. It
	// sizes the recall and the text (the hosts cut long context).
	Host   string
	Strict bool
	// Payload is the host payload or session summary read from stdin
	// (ReadPayload): whether the session goes on, and what Finish captures.
	Payload capture.Input
	// SummaryFile is a session summary file Finish captures when stdin
	// held no host payload.
	SummaryFile string
}

// Deps is what a session works with. Config may be nil (it did not load):
// the session then lists what the ledgers say and acts on nothing.
type Deps struct {
	Workspace workspace.Workspace
	Locks     *lock.Locker
	Clock     clock.Clock
	Config    *config.Set
	// Router applies the monitor's actions (an error: no configuration).
	Router  func() (*router.Router, error)
	Ledgers *ledger.Store
	// Warn receives every warning; it decides where they go (stderr, with
	// the deadline's swallowing: Run.Swallow).
	Warn func(format string, args ...any)
	// RecordMarks, when set, says which of the records hook start shows
	// verify's checks find rewritten (record id -> why): they are shown
	// marked (issue 32).
	RecordMarks func(recs []ledger.Record) map[string]string
	// MonitorWarnings reports what the monitor's scan found unreadable.
	MonitorWarnings func(*monitor.Report)
	// CLI is the command the sections tell the agent to run.
	CLI string

	// Memory. Intake builds the capture pipeline (spoolOnly: stop after the
	// spool write); Recall recalls; ReadFile reads a --summary-file within
	// the input limit; IndexPending reports a background index rebuild,
	// during which recall reads the issue's own file only.
	Intake       func(spoolOnly bool) *intake.Intake
	Recall       *recall.Service
	ReadFile     func(what, path string) ([]byte, error)
	IndexPending func() bool

	// Around the session, nil when not wanted: Pull merges the shared
	// state before Start reads anything and returns the ids it renumbered;
	// Push shares what the session changed after Finish; Checkpoint
	// snapshots the state after Finish, for the reason given.
	Pull       func(ctx context.Context) []statemerge.Rename
	Push       func(ctx context.Context)
	Checkpoint func(ctx context.Context, reason string)

	// Retain applies the retention policy to one slice of the store (one
	// issue file) at the session's end, within the deadline; StoreAlerts
	// returns the store's size alerts when they are due (once a day), which
	// Start passes to Warn. Nil: not wanted.
	Retain      func(ctx context.Context)
	StoreAlerts func(ctx context.Context) []string

	// Metrics records the session's measured figures (one event line;
	// at a session's end, weeklyFile set, the machine's weekly sums too,
	// before the push carries them). Nil: not recorded.
	Metrics func(ctx context.Context, l metrics.Line, weeklyFile bool)

	// Settle stores the decisions of an issue's resolved clarifications
	// memory lacks and says how many (settled.go). Nil: not wanted.
	Settle func(ctx context.Context, issue int) (int, error)
}

// Section is one `## Title` block of a hook's output. Sections keep their
// order.
type Section struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Result is what a session did and what the agent is shown.
type Result struct {
	Input
	// Status is the agent's status as written ("" when it was not).
	Status string
	// Report is the monitor's check (nil when none ran).
	Report      *monitor.Report
	Waiting     []ledger.Record // waiting for the agent's answer
	Requests    []ledger.Record // the agent's own open requests
	Escalations []ledger.Record // escalated records on the agent's issue
	// Untrusted marks the records shown that verify's checks find
	// rewritten past agentx (record id -> why; Deps.RecordMarks).
	Untrusted map[string]string
	Sections  []Section
	// Text is the sections as one markdown document (cut to the host's
	// limit for claude and codex).
	Text string
	// Blocked is Strict's verdict: why the agent must stop (nil: it may
	// go on, or Strict was not asked).
	Blocked *errcode.Error
	// unchecked: the deadline passed before the ledgers were read, so
	// nothing can be said about what waits.
	unchecked bool
}

// session is one run of Start or Finish.
type session struct {
	// spooledCut: the capture was cut short after its spool write (the
	// next hook start stores it).
	spooledCut bool
	d          *Deps
	run        *Run
	in         Input
	res        *Result
	// m is the session's metrics line, filled as the steps run.
	m metrics.Line
	// art is the session's issue's artifact ledger once read (stage.go).
	art *artifact.File
}

func (s *session) warn(format string, args ...any) {
	if s.d.Warn != nil {
		s.d.Warn(format, args...)
	}
}

func (s *session) githubMode() bool { return s.d.Config != nil && s.d.Config.Config.Mode == "github" }

// Start is `hook start`: pull (GitHub Mode), monitor, status working, the
// agent's clarifications, leftover captures and memory recall.
func Start(d *Deps, run *Run, in Input) *Result {
	s := &session{d: d, run: run, in: in, res: &Result{Input: in, unchecked: true}}
	// First: what arrives while this start gathers its sections is the
	// mid-session hooks' to deliver (or has its receipt from markShown).
	s.beginDelivery()
	var renames []statemerge.Rename
	if s.githubMode() && d.Pull != nil {
		run.Step("state pull", func(ctx context.Context) { renames = d.Pull(ctx) })
	}
	run.Step("monitor", func(ctx context.Context) { s.view(ctx) })
	run.Step("agent status", func(ctx context.Context) { s.setStatus(ctx, agentstatus.Working) })
	sections := s.clarificationSections()
	// One ledger file read: not a step of its own in the deadline's
	// report, only skipped with the rest once the deadline has passed.
	if ctx := run.Context(); ctx.Err() == nil {
		if sec, ok := s.stageSection(ctx); ok {
			sections = append(sections, sec)
		}
	}
	if sec, ok := renamedSection(renames); ok {
		sections = append([]Section{sec}, sections...)
	}
	mon, hasMon := monitorSection(s.res.Report)
	// What the other sections take of the host's ceiling is measured, not
	// guessed, so the recall fills exactly the room that is left.
	rest := sections
	if hasMon {
		rest = append(append([]Section(nil), sections...), mon)
	}
	run.Step("memory recall", func(ctx context.Context) {
		s.catchUp(ctx) // settled.go: resolved threads reach recall as decisions
		sections = append(sections, s.recall(ctx, len(Text(s.res, rest)))...)
	})
	if hasMon {
		sections = append(sections, mon)
	}
	if d.StoreAlerts != nil && s.memoryEnabled() {
		run.Step("memory alerts", func(ctx context.Context) {
			for _, w := range d.StoreAlerts(ctx) {
				s.warn("agentx hook start: %s", w)
			}
		})
	}
	s.markShown()
	s.recordMetrics("hook start", false)
	return s.finishResult(sections)
}

// beginDelivery marks the session's start for the mid-session hooks
// (package delivery): what arrives for the agent from now on is delivered
// into this session; what is there already, this start has shown.
func (s *session) beginDelivery() {
	sid := s.in.Payload.Payload.SessionID
	if sid == "" || s.d.Clock == nil {
		return
	}
	if err := delivery.Begin(s.d.Workspace, sid, s.in.Agent, s.d.Clock.Now()); err != nil && !errors.Is(err, delivery.ErrSession) {
		s.warn("agentx hook start: %v", err)
	}
}

// markShown writes the receipts of the answers this start showed (the
// latest answer of each of the agent's open requests).
func (s *session) markShown() {
	sid := s.in.Payload.Payload.SessionID
	if sid == "" || s.d.Clock == nil || len(s.res.Requests) == 0 || s.d.Ledgers == nil || s.run.Context().Err() != nil {
		return
	}
	d := &delivery.Deliverer{WS: s.d.Workspace, Ledgers: s.d.Ledgers, Clock: s.d.Clock}
	host := string(s.in.Payload.Payload.Host)
	if host == "" {
		host = s.in.Host
	}
	req := delivery.Request{Agent: s.in.Agent, Session: sid, Host: host}
	if err := d.MarkShown(s.run.Context(), req, s.res.Requests); err != nil {
		s.warn("agentx hook start: %v", err)
	}
}

// Finish is `hook finish`: monitor, status done (or still blocked, or
// working mid-session), memory capture, and at the session's end push
// (GitHub Mode) and checkpoint.
func Finish(d *Deps, run *Run, in Input) *Result {
	s := &session{d: d, run: run, in: in, res: &Result{Input: in, unchecked: true}}
	defer s.afterFinish()
	if in.Payload.Missing {
		s.warn("agentx hook finish: %s", MissingPayload)
	}
	run.Step("monitor", func(ctx context.Context) { s.view(ctx) })
	want := agentstatus.Done
	if in.Payload.MidSession() {
		want = agentstatus.Working // the session goes on: capture, but not done
	}
	run.Step("agent status", func(ctx context.Context) { s.setStatus(ctx, want) })
	var sections []Section
	captured := false
	run.Step("memory capture", func(ctx context.Context) {
		captured = true
		sec, ok, err := s.capture(ctx, false)
		if ok {
			sections = append(sections, sec)
		}
		if err != nil {
			s.warn("agentx hook finish: memory capture: %v", err)
		}
	})
	if s.spooledCut {
		run.Rename("memory capture (cut short)", "memory capture (cut short after the spool write: the next hook start stores it)")
	}
	if !captured {
		s.spoolLate()
	}
	if r := s.res.blockingWait(); r != nil {
		sections = append(sections, Section{Title: "Still waiting", Body: fmt.Sprintf(
			"- %s to %s (%s): %s\n  %s stays blocked-clarification until it is answered.", r.ID, r.To, r.Status, r.Topic, in.Agent)})
	}
	if len(s.res.Waiting) > 0 {
		sections = append(sections, waitingSection(s.res.Waiting, d.CLI, s.res.Untrusted))
	}
	if sec, ok := monitorSection(s.res.Report); ok {
		sections = append(sections, sec)
	}
	if hostForm(s.res.Host) {
		s.res.Host = "text" // no host reads context from session-end hooks
	}
	if in.Payload.IsPayload() && in.Payload.Payload.SessionEnd() {
		delivery.End(d.Workspace, in.Payload.Payload.SessionID)
	}
	return s.finishResult(sections)
}

// MissingPayload is the warning of a hook finish whose host payload never
// came (doctor counts the runs that logged it).
const MissingPayload = "no host payload arrived on stdin within the hook's wait (the host sent it late or not at all): nothing was captured and the agent is not marked done"

// afterFinish shares and checkpoints the state at the session's end. A
// mid-session payload (Claude Code's Stop fires after every reply) does
// neither: the session's end does, once.
func (s *session) afterFinish() {
	s.recordMetrics("hook finish", !s.in.Payload.MidSession())
	if s.in.Payload.MidSession() {
		return
	}
	if s.githubMode() && s.d.Push != nil {
		s.run.Step("state push", s.d.Push)
	}
	if s.d.Checkpoint != nil && s.d.Config != nil && s.d.Config.Config.Checkpoints.OnHookFinish {
		reason := "at hook finish"
		if s.in.Agent != "" {
			reason += " of " + s.in.Agent
		}
		s.run.Step("checkpoint", func(ctx context.Context) { s.d.Checkpoint(ctx, reason) })
	}
	if s.d.Retain != nil && s.memoryEnabled() {
		// Last: housekeeping gets what the deadline leaves after the
		// session's own work is shared; what it archives travels with the
		// next push (its tombstones keep it archived meanwhile).
		s.run.Step("memory retention", s.d.Retain)
	}
}

// recordMetrics records the session's metrics line (and, weeklyFile set,
// the weekly sums) as a step of its own: a slow event log costs the
// deadline, never the session's work.
func (s *session) recordMetrics(command string, weeklyFile bool) {
	if s.d.Metrics == nil {
		return
	}
	s.m.Command, s.m.Agent, s.m.Issue, s.m.Lines = command, s.in.Agent, s.in.Issue, 1
	if s.d.Locks != nil {
		waited, timeouts := s.d.Locks.Stats()
		s.m.LockWaitMS, s.m.LockTimeouts = waited.Milliseconds(), timeouts
	}
	s.run.Step("metrics", func(ctx context.Context) { s.d.Metrics(ctx, s.m, weeklyFile) })
}

func (s *session) finishResult(sections []Section) *Result {
	s.res.Sections = sections
	s.res.Text = Text(s.res, sections)
	if hostForm(s.res.Host) {
		s.res.Text = FitHost(s.res.Text, s.res.Host)
	}
	if s.in.Strict {
		s.res.Blocked = s.res.verdict(s.d.CLI)
	}
	return s.res
}

// hostForm reports an output form that is a host's hook format (its
// context is cut to the host's limit).
func hostForm(host string) bool { return host == "claude" || host == "codex" || host == "copilot" }

// AgentAccepted checks an agent name as `memory add` does, and against the
// agents the workflows and config know (when they name any): a typo in a
// host's hook settings would otherwise be written into agent status for
// good and report "nothing waits for you" forever. why says what is wrong
// and how to fix it; cfg may be nil.
func AgentAccepted(agent string, cfg *config.Set) (why string, ok bool) {
	if err := validate.Agent("agent", agent); err != nil {
		return fmt.Sprintf("%v; nothing done (check --agent or $AGENTX_AGENT)", err), false
	}
	if cfg == nil {
		return "", true // a broken config is reported by the hook body
	}
	known := cfg.KnownAgents()
	if len(known) == 0 || known[agent] {
		return "", true
	}
	return fmt.Sprintf("agent %q is not in the workflows or config (known: %s); nothing done (check --agent or $AGENTX_AGENT)", agent, strings.Join(cfg.KnownAgentNames(), ", ")), false
}
