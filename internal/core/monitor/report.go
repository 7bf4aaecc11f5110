package monitor

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/render"
)

// How a check reads: its text for people, its findings as flat items for
// `monitor --json`, and the stale-and-stuck view of `clarify stale`. Each
// returns values; the command writes them.

// ActionLines are the actions a check took, one line each ("monitor:
// CLR-1-001 marked stale (...)"), leaving out what it skipped or let
// continue: what a command running the check as a side effect reports.
func (r *Report) ActionLines() []string {
	var out []string
	for _, act := range r.Actions {
		if act.Kind == ActSkipped || act.Kind == ActContinued {
			continue
		}
		out = append(out, fmt.Sprintf("monitor: %s %s (%s)", act.ID, strings.ReplaceAll(act.Kind, "-", " "), act.Detail))
	}
	return out
}

// Text is the check for people: what was checked, the stale, stuck and
// deadlocked findings, and every action.
func (r *Report) Text(st render.Style) string {
	var b strings.Builder
	p := &r.Plan
	fmt.Fprintf(&b, "Checked %d open clarification(s) on %d issue(s).\n", len(r.Open), len(r.Issues))
	if len(r.Undelivered) > 0 {
		fmt.Fprintln(&b, st.Bold("Undelivered past the SLA:"))
		for _, line := range UndeliveredLines(r.Undelivered) {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	if p.Empty() {
		fmt.Fprintln(&b, st.Green("No stale, stuck or deadlocked clarifications."))
		return b.String()
	}
	if len(p.Stale) > 0 {
		fmt.Fprintln(&b, st.Bold("Stale:"))
		for _, f := range p.Stale {
			rec := &f.Record
			which := "first timeout"
			if f.Timeout == 2 {
				which = "second timeout"
			}
			fmt.Fprintf(&b, "  %s %s -> %s: %s (%s, due %s)\n", rec.ID, rec.From, rec.To, rec.Topic, which, rec.StaleAfter)
		}
	}
	if len(p.Stuck) > 0 {
		fmt.Fprintln(&b, st.Bold("Stuck:"))
		for _, f := range p.Stuck {
			rec := &f.Record
			fmt.Fprintf(&b, "  %s %s -> %s: %s\n", rec.ID, rec.From, rec.To, rec.Topic)
			for _, line := range strings.Split(f.Detail, "\n") {
				fmt.Fprintf(&b, "    %s\n", line)
			}
		}
	}
	if len(p.Deadlocks) > 0 {
		fmt.Fprintln(&b, st.Bold("Deadlocks:"))
		for _, d := range p.Deadlocks {
			fmt.Fprintf(&b, "  %s -> %s\n", strings.Join(d.Agents, " -> "), d.Agents[0])
		}
	}
	fmt.Fprintln(&b, st.Bold("Actions:"))
	for _, act := range r.Actions {
		fmt.Fprintf(&b, "  %-13s %s  %s\n", act.Kind, act.ID, act.Detail)
	}
	return b.String()
}

// Item is one stale or stuck record as `monitor --json` lists it.
type Item struct {
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

// DeadlockItem is one cycle as `monitor --json` lists it: record ids,
// not records.
type DeadlockItem struct {
	Agents   []string `json:"agents"`
	Continue []string `json:"continue"`
	Escalate []string `json:"escalate"`
	Reason   string   `json:"reason"`
}

// Findings is a check's plan flattened for a document; every list is
// non-nil so it reads as [] rather than null.
type Findings struct {
	Stale, Stuck []Item
	Deadlocked   []DeadlockItem
	// Warnings are the skipped ledgers and the failed actions, as text.
	Warnings []string
}

// Findings flattens the check's plan.
func (r *Report) Findings() Findings {
	mk := func(rec *ledger.Record) Item {
		return Item{ID: rec.ID, Issue: rec.IssueNumber, From: rec.From, To: rec.To, Topic: rec.Topic, Status: rec.Status}
	}
	f := Findings{Stale: []Item{}, Stuck: []Item{}, Deadlocked: []DeadlockItem{}, Warnings: []string{}}
	for _, s := range r.Plan.Stale {
		it := mk(&s.Record)
		it.Timeout = s.Timeout
		f.Stale = append(f.Stale, it)
	}
	for _, s := range r.Plan.Stuck {
		it := mk(&s.Record)
		it.Rounds, it.Flipped = s.Rounds, s.Flipped
		f.Stuck = append(f.Stuck, it)
	}
	for _, d := range r.Plan.Deadlocks {
		cont, esc := []string{}, []string{}
		for _, rec := range d.Continue {
			cont = append(cont, rec.ID)
		}
		for _, rec := range d.Escalate {
			esc = append(esc, rec.ID)
		}
		f.Deadlocked = append(f.Deadlocked, DeadlockItem{Agents: d.Agents, Continue: cont, Escalate: esc, Reason: d.Reason()})
	}
	for _, w := range append(append([]error(nil), r.Warnings...), r.Failures...) {
		f.Warnings = append(f.Warnings, w.Error())
	}
	return f
}

// StaleAndStuck sorts recs (the open and escalated records of every
// ledger, read after the check r) into what `clarify stale` lists: stuck
// are the records the monitor escalated as stuck, and those the check
// found stuck but still open (their escalation failed); stale are the
// others waiting past their SLA or marked stale.
func (r *Report) StaleAndStuck(recs []ledger.Record, now time.Time) (stale, stuck []ledger.Record) {
	stuckOpen := map[string]bool{}
	for _, f := range r.Plan.Stuck {
		stuckOpen[f.Record.ID] = true
	}
	for _, rec := range recs {
		switch {
		case rec.Status == ledger.Escalated && protocol.MonitorReason(&rec) == protocol.ReasonStuck, stuckOpen[rec.ID] && rec.Status.Open():
			stuck = append(stuck, rec)
		case rec.Status == ledger.Stale || protocol.Timeout(&rec, now) > 0:
			stale = append(stale, rec)
		}
	}
	return stale, stuck
}

// StaleText is `clarify stale` for people.
func StaleText(st render.Style, stale, stuck []ledger.Record, now time.Time) string {
	if len(stale) == 0 && len(stuck) == 0 {
		return "No stale or stuck clarifications.\n"
	}
	var b strings.Builder
	if len(stale) > 0 {
		fmt.Fprintln(&b, st.Bold("Stale (the target owes an answer past the SLA):"))
		render.List(&b, st, stale, now)
	}
	if len(stuck) > 0 {
		if len(stale) > 0 {
			fmt.Fprintln(&b)
		}
		fmt.Fprintln(&b, st.Bold("Stuck (the same question asked again):"))
		render.List(&b, st, stuck, now)
	}
	return b.String()
}

// Problems are what a check's caller warns about, each prefixed
// "monitor: ": the ledgers the scan skipped when withScan (a caller that
// does not list them itself), then the actions that failed.
func (r *Report) Problems(withScan bool) []string {
	var out []string
	if withScan {
		for _, w := range r.Warnings {
			out = append(out, fmt.Sprintf("monitor: %v", w))
		}
	}
	for _, f := range r.Failures {
		out = append(out, fmt.Sprintf("monitor: %v", f))
	}
	return out
}
