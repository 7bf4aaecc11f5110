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
