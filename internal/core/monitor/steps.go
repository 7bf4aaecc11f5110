package monitor

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// Step is one thing a plan asks for: a protocol operation on one record
// or, when Op.Verb is empty, a record left to continue (the winner of a
// deadlock; Op.Issue and Op.ID name it).
type Step struct {
	Op protocol.Op
	// Why is the monitor's reason: ReasonStale, ReasonStuck or
	// ReasonDeadlock.
	Why string
	// Detail says why a record continues.
	Detail string
}

// Steps lists the plan's actions in the order a check performs them:
// stuck escalations first, then deadlock breaks, then stale timeouts.
func (p *Plan) Steps() []Step {
	var out []Step
	for _, f := range p.Stuck {
		reason := "stuck: the same question keeps coming back"
		if f.Flipped != "" {
			reason = fmt.Sprintf("stuck: %s asks %s the same topic %s asked in %s", f.Record.From, f.Record.To, f.Record.To, f.Flipped)
		}
		out = append(out, Step{Why: ReasonStuck, Op: protocol.Op{Verb: protocol.EscalateStuck, Issue: f.Record.IssueNumber, InIssue: true,
			ID: f.Record.ID, Reason: reason, Detail: f.Detail, Flipped: f.Flipped != ""}})
	}
	for _, d := range p.Deadlocks {
		reason := d.Reason()
		for _, r := range d.Escalate {
			out = append(out, Step{Why: ReasonDeadlock, Op: protocol.Op{Verb: protocol.EscalateDeadlock, Issue: r.IssueNumber, InIssue: true,
				ID: r.ID, Reason: reason}})
		}
		for _, r := range d.Continue {
			out = append(out, Step{Why: ReasonDeadlock, Op: protocol.Op{Issue: r.IssueNumber, InIssue: true, ID: r.ID},
				Detail: fmt.Sprintf("%s has the highest priority in the cycle", r.From)})
		}
	}
	for _, f := range p.Stale {
		op := protocol.Op{Verb: protocol.MarkStale, Issue: f.Record.IssueNumber, InIssue: true, ID: f.Record.ID}
		if f.Timeout == 2 {
			op.Verb = protocol.EscalateStale
			op.Reason = fmt.Sprintf("no answer from %s after two SLA windows (round %d)", f.Record.To, f.Record.Round)
		}
		out = append(out, Step{Why: ReasonStale, Op: op})
	}
	return out
}

// PlanFor decides what a check of ledgers does at now: Detect over their
// records. It reads nothing but its arguments.
func PlanFor(ledgers []*ledger.Ledger, now time.Time, priority []string) Plan {
	var recs []ledger.Record
	for _, l := range ledgers {
		recs = append(recs, l.Clarifications...)
	}
	return Detect(recs, now, priority)
}

// ApplySteps performs steps on ledgers in memory (GitHub Mode: no lock, no
// responder, no agent status or event log), each through protocol.Apply on
// the ledger of its issue. Steps that no longer apply are skipped. It
// returns the issues whose ledgers changed, in the order they first did, and
// the steps that failed.
func ApplySteps(ledgers []*ledger.Ledger, steps []Step, env protocol.Env) (changed []int, failures []error) {
	byIssue := make(map[int]*ledger.Ledger, len(ledgers))
	for _, l := range ledgers {
		byIssue[l.IssueNumber] = l
	}
	seen := map[int]bool{}
	for _, st := range steps {
		l := byIssue[st.Op.Issue]
		if st.Op.Verb == "" || l == nil {
			continue
		}
		_, err := protocol.Apply(l, st.Op, env)
		if errors.Is(err, protocol.ErrNotApplicable) {
			continue
		}
		if err != nil {
			failures = append(failures, fmt.Errorf("%s %s: %w", st.Op.Verb, st.Op.ID, err))
			continue
		}
		if !seen[st.Op.Issue] {
			seen[st.Op.Issue] = true
			changed = append(changed, st.Op.Issue)
		}
	}
	return changed, failures
}
