package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/ready"
	"github.com/agentx-dev/agentx/internal/core/render"
)

// shiftedClock runs from the instant $AGENTX_NOW names (see applyTestClock).
type shiftedClock struct{ offset time.Duration }

func (c shiftedClock) Now() time.Time { return time.Now().Add(c.offset) }

// applyTestClock honours $AGENTX_NOW (RFC 3339) so end-to-end tests and
// the demo can step past SLAs without sleeping: the process's clock starts
// at that instant and runs on. It is a testing aid, not a user setting.
func (a *App) applyTestClock() {
	v := a.Getenv("AGENTX_NOW")
	if v == "" {
		return
	}
	t, err := clock.Parse(v)
	if err != nil {
		a.warn("ignoring AGENTX_NOW: %v", err)
		return
	}
	a.Clock = shiftedClock{offset: time.Until(t)}
}

// checkMonitor runs one monitor check against the workspace.
func (a *App) checkMonitor(ctx context.Context) (*monitor.Report, error) {
	rt, err := a.Router()
	if err != nil {
		return nil, err
	}
	return monitor.New(rt).Check(ctx)
}

// monitorSideEffect is the check every clarify command runs (ADR-1: no
// daemon). It never fails the command: what it did and what went wrong go
// to stderr, so stdout (and --json documents) stay the command's own.
// Unreadable ledgers are left to the command itself to report.
func (a *App) monitorSideEffect(ctx context.Context) {
	rt, err := a.Router()
	if err != nil {
		return // the command reports the configuration error itself
	}
	rep, err := monitor.New(rt).Check(ctx)
	if err != nil {
		a.warn("monitor: %v", err)
		return
	}
	a.printActions(rep, false)
}

// printActions prints what a check did, one line each, to stderr.
func (a *App) printActions(rep *monitor.Report, withScan bool) {
	for _, act := range rep.Actions {
		if act.Kind == monitor.ActSkipped || act.Kind == monitor.ActContinued {
			continue
		}
		fmt.Fprintf(a.Stderr, "monitor: %s %s (%s)\n", act.ID, strings.ReplaceAll(act.Kind, "-", " "), act.Detail)
	}
	a.printWarnings(rep, withScan)
}

// printWarnings prints failed actions and, with withScan, skipped ledgers.
func (a *App) printWarnings(rep *monitor.Report, withScan bool) {
	if withScan {
		for _, w := range rep.Warnings {
			a.warn("monitor: %v", w)
		}
	}
	for _, w := range rep.Failures {
		a.warn("monitor: %v", w)
	}
}

const monitorUsage = `monitor [--json]

Runs one check over every clarification ledger and acts on what it finds:
  stale      a pending clarification past its SLA: marked stale and its target's
             responder re-invoked once (first timeout); escalated to a person
             at the second timeout
  stuck      the same question asked again (across rounds, or the same topic
             asked back in the opposite direction): escalated with the rounds quoted
  deadlock   agents waiting on each other in a cycle of blocking clarifications:
             the highest-priority agent's request continues, the others are escalated
Each action happens once; hooks and clarify commands run the same check.`

var parseMonitor = parseNoArgs("monitor", monitorUsage)

func runMonitor(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	rep, err := a.checkMonitor(ctx)
	if err != nil {
		return err
	}
	if o.JSON {
		return a.writeDoc(newMonitorDoc(rep))
	}
	a.printWarnings(rep, true)
	a.printReport(rep)
	return nil
}

// printReport prints a check for people.
func (a *App) printReport(rep *monitor.Report) {
	st := a.Style()
	p := &rep.Plan
	fmt.Fprintf(a.Stdout, "Checked %d open clarification(s) on %d issue(s).\n", len(rep.Open), len(rep.Issues))
	if p.Empty() {
		fmt.Fprintln(a.Stdout, st.Green("No stale, stuck or deadlocked clarifications."))
		return
	}
	if len(p.Stale) > 0 {
		fmt.Fprintln(a.Stdout, st.Bold("Stale:"))
		for _, f := range p.Stale {
			r := &f.Record
			which := "first timeout"
			if f.Timeout == 2 {
				which = "second timeout"
			}
			fmt.Fprintf(a.Stdout, "  %s %s -> %s: %s (%s, due %s)\n", r.ID, r.From, r.To, r.Topic, which, r.StaleAfter)
		}
	}
	if len(p.Stuck) > 0 {
		fmt.Fprintln(a.Stdout, st.Bold("Stuck:"))
		for _, f := range p.Stuck {
			r := &f.Record
			fmt.Fprintf(a.Stdout, "  %s %s -> %s: %s\n", r.ID, r.From, r.To, r.Topic)
			for _, line := range strings.Split(f.Detail, "\n") {
				fmt.Fprintf(a.Stdout, "    %s\n", line)
			}
		}
	}
	if len(p.Deadlocks) > 0 {
		fmt.Fprintln(a.Stdout, st.Bold("Deadlocks:"))
		for _, d := range p.Deadlocks {
			fmt.Fprintf(a.Stdout, "  %s -> %s\n", strings.Join(d.Agents, " -> "), d.Agents[0])
		}
	}
	fmt.Fprintln(a.Stdout, st.Bold("Actions:"))
	for _, act := range rep.Actions {
		fmt.Fprintf(a.Stdout, "  %-13s %s  %s\n", act.Kind, act.ID, act.Detail)
	}
}

// monitorItem is one stale or stuck record of `monitor --json`.
type monitorItem struct {
	ID      string        `json:"id"`
	Issue   int           `json:"issueNumber"`
	From    string        `json:"from"`
	To      string        `json:"to"`
	Topic   string        `json:"topic"`
	Status  ledger.Status `json:"status"`
	Timeout int           `json:"timeout,omitempty"`
	Rounds  []int         `json:"rounds,omitempty"`
	Flipped string        `json:"flippedWith,omitempty"`
}

// monitorDeadlock is one cycle of `monitor --json`.
type monitorDeadlock struct {
	Agents   []string `json:"agents"`
	Continue []string `json:"continue"`
	Escalate []string `json:"escalate"`
	Reason   string   `json:"reason"`
}

type monitorDoc struct {
	Actions    []monitor.Action  `json:"actions"`
	CheckedAt  string            `json:"checkedAt"`
	Deadlocked []monitorDeadlock `json:"deadlocked"`
	Issues     int               `json:"issues"`
	Open       int               `json:"open"`
	schemaVersion
	Stale    []monitorItem `json:"stale"`
	Stuck    []monitorItem `json:"stuck"`
	Warnings []string      `json:"warnings"`
}

func newMonitorDoc(rep *monitor.Report) *monitorDoc {
	mk := func(r *ledger.Record) monitorItem {
		return monitorItem{ID: r.ID, Issue: r.IssueNumber, From: r.From, To: r.To, Topic: r.Topic, Status: r.Status}
	}
	stale, stuck := []monitorItem{}, []monitorItem{}
	for _, f := range rep.Plan.Stale {
		it := mk(&f.Record)
		it.Timeout = f.Timeout
		stale = append(stale, it)
	}
	for _, f := range rep.Plan.Stuck {
		it := mk(&f.Record)
		it.Rounds, it.Flipped = f.Rounds, f.Flipped
		stuck = append(stuck, it)
	}
	deadlocks := []monitorDeadlock{}
	for _, d := range rep.Plan.Deadlocks {
		var cont, esc []string
		for _, r := range d.Continue {
			cont = append(cont, r.ID)
		}
		for _, r := range d.Escalate {
			esc = append(esc, r.ID)
		}
		deadlocks = append(deadlocks, monitorDeadlock{Agents: d.Agents, Continue: nonNil(cont), Escalate: nonNil(esc), Reason: d.Reason()})
	}
	warnings := []string{}
	for _, w := range append(rep.Warnings, rep.Failures...) {
		warnings = append(warnings, w.Error())
	}
	return &monitorDoc{CheckedAt: clock.Format(rep.CheckedAt),
		Issues: len(rep.Issues), Open: len(rep.Open), Stale: stale, Stuck: stuck, Deadlocked: deadlocks,
		Actions: nonNil(rep.Actions), Warnings: warnings}
}

var parseReady = parseNoArgs("ready", "ready [--json]\n\nIssues known locally (clarification ledgers, memory, .agentx/issues/*.json), with\n[BLOCKED: Clarification pending] where a blocking clarification waits for an answer\nand [WAITING FOR A PERSON] where a blocking one was escalated.")

type readyDoc struct {
	Issues []*ready.Issue `json:"issues"`
	schemaVersion
}

func runReady(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	rt, err := a.Router()
	if err != nil {
		return err
	}
	rep, err := ready.Load(ctx, monitor.New(rt), a.Workspace())
	if err != nil {
		return err
	}
	a.printActions(rep.Monitor, true)
	for _, w := range rep.Warnings {
		a.warn("%s", w)
	}
	if o.JSON {
		return a.writeDoc(&readyDoc{Issues: rep.Issues})
	}
	a.printReady(rep.Issues)
	return nil
}

// printReady prints `ready`'s lines: who an issue waits for, or ready.
func (a *App) printReady(list []*ready.Issue) {
	if len(list) == 0 {
		fmt.Fprintln(a.Stdout, "No issues known locally.")
		return
	}
	st := a.Style()
	for _, ri := range list {
		line := fmt.Sprintf("#%-5d", ri.Issue)
		if ri.Title != "" {
			line += " " + ri.Title
		}
		if ri.Status != "" {
			line += " (" + ri.Status + ")"
		}
		if len(ri.EscalatedLines) > 0 {
			line += " " + st.Red("[WAITING FOR A PERSON]") + " " + strings.Join(ri.EscalatedLines, "; ")
		}
		if len(ri.Waits) > 0 {
			line += " " + st.Red("[BLOCKED: Clarification pending]") + " " + strings.Join(ri.Waits, "; ")
		}
		if !ri.Blocked {
			line += " " + st.Green("ready")
		}
		fmt.Fprintln(a.Stdout, line)
	}
}

// demoMonitor shows the monitor acting: time jumps past the SLA (each
// step sets $AGENTX_NOW), a question nobody answers is marked stale once
// and escalated at its second timeout, a question asked again is escalated
// as stuck, and the ready queue and a session-start hook show the result.
// (Deadlocks need a custom workflow: the default ones never let two agents
// block on each other; see the monitor tests and README.)
func demoMonitor() []demoStep {
	at := func(t string) map[string]string { return map[string]string{"AGENTX_NOW": t} }
	return []demoStep{
		{title: "Monitor: the engineer asks the product manager on issue 61 (no responder: it waits for a person)",
			args: []string{"clarify", "request", "--workflow", "bug", "--issue", "61", "--from", "engineer", "--to", "product-manager",
				"--topic", "rate limits", "--question", "Which rate limit applies to the public API?"}, env: at("2030-01-01T09:00:00Z")},
		{title: "45 minutes later nobody has answered: first timeout, marked stale, the SLA starts again",
			args: []string{"monitor"}, env: at("2030-01-01T09:45:00Z")},
		{title: "Checking again changes nothing: each action happens once per timeout",
			args: []string{"monitor"}, env: at("2030-01-01T09:50:00Z")},
		{title: "Still no answer after the second SLA window: escalated to a person",
			args: []string{"monitor", "--json"}, env: at("2030-01-01T10:20:00Z")},
		{title: "The escalation a person reads: the SPEC's summary and the commands that settle it",
			args: []string{"clarify", "--issue", "61"}, env: at("2030-01-01T10:21:00Z")},
		{title: "Stuck: on issue 62 the engineer asks the same question again after an answer",
			args: []string{"clarify", "request", "--workflow", "bug", "--issue", "62", "--from", "engineer", "--to", "product-manager",
				"--topic", "export scope", "--question", "Should the export include archived projects?"}, env: at("2030-01-01T11:00:00Z")},
		{args: []string{"clarify", "answer", "CLR-62-001", "--body", "It depends on the customer."}, env: at("2030-01-01T11:01:00Z")},
		{title: "The follow-up repeats round 1; the clarify command's own monitor check escalates it with both rounds quoted",
			args: []string{"clarify", "ask", "CLR-62-001", "--body", "So should the export include the archived projects?"}, env: at("2030-01-01T11:02:00Z")},
		{title: "clarify stale lists stale and stuck clarifications", args: []string{"clarify", "stale"}, env: at("2030-01-01T11:03:00Z")},
		{title: "A third question on issue 63 waits for the product manager", args: []string{"clarify", "request", "--workflow", "bug", "--issue", "63",
			"--from", "engineer", "--to", "product-manager", "--topic", "retry policy", "--question", "How often may the client retry a failed upload?"},
			env: at("2030-01-01T11:04:00Z")},
		{title: "The ready queue marks issues where a blocking clarification waits for an agent, or (escalated) for a person",
			args: []string{"ready"}, env: at("2030-01-01T11:05:00Z")},
		{title: "A session starts: the product manager's hook lists what waits for its answer",
			args: []string{"hook", "start", "--agent", "product-manager", "--issue", "63"}, env: at("2030-01-01T11:06:00Z")},
	}
}

// monitorAfter reports whether a clarify subcommand that returned err
// should still run the monitor: yes after any protocol outcome, no after a
// usage error or --help (nothing was asked of the protocol).
func monitorAfter(err error) bool {
	var ue *usageError
	return !errors.Is(err, errHelp) && !errors.As(err, &ue)
}

// runClarifyStale runs a check (acting like every clarify command) and
// lists what is stale and what is stuck: records waiting past their SLA or
// marked stale, and records the monitor escalated as stuck (with those the
// check found still open, should its escalation have failed).
var parseClarifyStale = parseNoArgs("clarify stale", "clarify stale [--json]\n\nStale clarifications (the target owes an answer past the SLA) and stuck ones\n(the same question asked again), after one monitor check.")

type staleDoc struct {
	schemaVersion
	Stale []ledger.Record `json:"stale"`
	Stuck []ledger.Record `json:"stuck"`
}

func runClarifyStale(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	rep, err := a.checkMonitor(ctx)
	if err != nil {
		return err
	}
	a.printActions(rep, false)
	now := a.Clock.Now()
	stuckOpen := map[string]bool{}
	for _, f := range rep.Plan.Stuck {
		stuckOpen[f.Record.ID] = true
	}
	var stale, stuck []ledger.Record
	recs, err := a.loadRecords(func(r *ledger.Record) bool {
		return r.Status.Open() || r.Status == ledger.Escalated
	})
	if err != nil {
		return err
	}
	for _, r := range recs {
		switch {
		case r.Status == ledger.Escalated && protocol.MonitorReason(&r) == protocol.ReasonStuck, stuckOpen[r.ID] && r.Status.Open():
			stuck = append(stuck, r)
		case r.Status == ledger.Stale || protocol.Timeout(&r, now) > 0:
			stale = append(stale, r)
		}
	}
	if o.JSON {
		return a.writeDoc(&staleDoc{Stale: nonNil(stale), Stuck: nonNil(stuck)})
	}
	if len(stale) == 0 && len(stuck) == 0 {
		fmt.Fprintln(a.Stdout, "No stale or stuck clarifications.")
		return nil
	}
	st := a.Style()
	if len(stale) > 0 {
		fmt.Fprintln(a.Stdout, st.Bold("Stale (the target owes an answer past the SLA):"))
		render.List(a.Stdout, st, stale, now)
	}
	if len(stuck) > 0 {
		if len(stale) > 0 {
			fmt.Fprintln(a.Stdout)
		}
		fmt.Fprintln(a.Stdout, st.Bold("Stuck (the same question asked again):"))
		render.List(a.Stdout, st, stuck, now)
	}
	return nil
}
