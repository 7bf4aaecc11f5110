// Package monitor owns the clarification monitor: it finds stale, stuck and
// deadlocked clarifications across every issue and acts on them (mark
// stale and retry the target's responder, escalate at the second timeout,
// escalate circular conversations, break wait-for cycles). There is no
// daemon: hooks and commands run one check as a side effect, so a check
// must be cheap (see Scanner) and safe to run from many processes at once
// (each action re-reads its record under the ledger lock and re-checks it,
// so it happens once and never to a record settled since the scan).
//
// Detection (Detect) is a pure function of records, time and the priority
// list; Monitor.Check adds the reading and the acting.
package monitor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/router"
)

// Monitor runs checks against one workspace through its hub.
type Monitor struct {
	Router  *router.Router
	Scanner *Scanner
}

// New returns the monitor of the router's workspace.
func New(rt *router.Router) *Monitor {
	return &Monitor{Router: rt, Scanner: NewScanner(rt.WS)}
}

// Action kinds.
const (
	ActMarkedStale = "marked-stale"
	ActRetried     = "retried"
	ActAnswered    = "answered"
	ActEscalated   = "escalated"
	ActContinued   = "continued"
	ActSkipped     = "skipped"
)

// Action is one thing a check did (or, for skipped, chose not to do
// because the record changed since the scan).
type Action struct {
	Kind   string `json:"action"`
	ID     string `json:"id"`
	Issue  int    `json:"issueNumber"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// Report is the outcome of one check.
type Report struct {
	Issues  []int
	Open    []ledger.Record
	Plan    Plan
	Actions []Action
	// Warnings are ledgers the scan skipped (unreadable, corrupt).
	Warnings []error
	// Failures are actions that failed (a lock timeout, a write error).
	Failures  []error
	Scanned   int // ledger files read (not skipped by the index)
	CheckedAt time.Time
}

// errUnchanged aborts a transition whose record no longer qualifies.
var errUnchanged = errors.New("record changed since the scan")

// Check scans, decides and acts. Failures of single actions are reported
// as warnings; only a failure to scan at all is an error.
func (m *Monitor) Check(ctx context.Context) (*Report, error) {
	scan, err := m.Scanner.Scan()
	if err != nil {
		return nil, err
	}
	now := m.Router.Clock.Now()
	rep := &Report{Issues: scan.Issues, Open: scan.Open, Warnings: scan.Warnings, Scanned: scan.Read, CheckedAt: now}
	rep.Plan = Detect(scan.Open, now, m.Router.Config.Priority())
	m.Act(ctx, rep)
	return rep, nil
}

// Act carries out rep.Plan, appending to rep.Actions and rep.Warnings.
func (m *Monitor) Act(ctx context.Context, rep *Report) {
	p := &rep.Plan
	for _, f := range p.Stuck {
		reason := "stuck: the same question keeps coming back"
		if f.Flipped != "" {
			reason = fmt.Sprintf("stuck: %s asks %s the same topic %s asked in %s", f.Record.From, f.Record.To, f.Record.To, f.Flipped)
		}
		rep.add(m.escalate(ctx, &f.Record, ReasonStuck, reason, f.Detail, func(r *ledger.Record) bool {
			if f.Flipped != "" {
				return true // the pairing was judged on the scan; the record itself is still open
			}
			_, ok := RepeatedQuestion(r)
			return ok
		}))
	}
	for _, d := range p.Deadlocks {
		reason := d.Reason()
		for _, r := range d.Escalate {
			rep.add(m.escalate(ctx, &r, ReasonDeadlock, reason, "", func(r *ledger.Record) bool {
				return r.Blocking && r.Status.Waiting()
			}))
		}
		for _, r := range d.Continue {
			rep.Actions = append(rep.Actions, Action{Kind: ActContinued, ID: r.ID, Issue: r.IssueNumber, Reason: ReasonDeadlock,
				Detail: fmt.Sprintf("%s has the highest priority in the cycle", r.From)})
		}
	}
	for _, f := range p.Stale {
		if f.Timeout == 2 {
			reason := fmt.Sprintf("no answer from %s after two SLA windows (round %d)", f.Record.To, f.Record.Round)
			rep.add(m.escalate(ctx, &f.Record, ReasonStale, reason, "", func(r *ledger.Record) bool {
				return Timeout(r, m.Router.Clock.Now()) == 2
			}))
			continue
		}
		rep.add(m.firstTimeout(ctx, &f.Record))
	}
}

func (rep *Report) add(acts []Action, err error) {
	rep.Actions = append(rep.Actions, acts...)
	if err != nil {
		rep.Failures = append(rep.Failures, err)
	}
}

// firstTimeout marks the record stale, pushes staleAfter out by one SLA
// and re-invokes the target's responder once, if it has one.
func (m *Monitor) firstTimeout(ctx context.Context, scanned *ledger.Record) ([]Action, error) {
	rt := m.Router
	wasPending := false
	rec, err := rt.Transition(ctx, scanned.IssueNumber, scanned.ID, func(r *ledger.Record, _ string) error {
		now := rt.Clock.Now()
		if Timeout(r, now) != 1 {
			return errUnchanged
		}
		wasPending = r.Status == ledger.Pending
		r.Status = ledger.Stale
		r.StaleAfter = clock.Format(now.Add(router.SLA(r)))
		setStaleRound(r)
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return []Action{{Kind: ActSkipped, ID: scanned.ID, Issue: scanned.IssueNumber, Reason: ReasonStale, Detail: "changed since the scan"}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mark %s stale: %w", scanned.ID, err)
	}
	if wasPending {
		rt.Emit(ctx, events.ClarificationStale, rec)
	}
	acts := []Action{{Kind: ActMarkedStale, ID: rec.ID, Issue: rec.IssueNumber, Reason: ReasonStale,
		Detail: fmt.Sprintf("no answer from %s within the SLA; next check due %s", rec.To, rec.StaleAfter)}}
	if rt.Responder == nil || !rt.Responder.Has(rec.To) {
		return acts, nil
	}
	// The retry runs with no lock held: a responder may take minutes.
	res, err := rt.Retry(ctx, rec)
	switch {
	case res != nil && res.Answer != "":
		acts = append(acts, Action{Kind: ActAnswered, ID: rec.ID, Issue: rec.IssueNumber, Reason: ReasonStale,
			Detail: fmt.Sprintf("%s's responder answered the retry", rec.To)})
	case res != nil && res.Escalated:
		acts = append(acts, Action{Kind: ActEscalated, ID: rec.ID, Issue: rec.IssueNumber, Reason: ReasonStale,
			Detail: fmt.Sprintf("%s's responder failed on retry: %v", rec.To, err)})
		err = nil
	default:
		acts = append(acts, Action{Kind: ActRetried, ID: rec.ID, Issue: rec.IssueNumber, Reason: ReasonStale,
			Detail: fmt.Sprintf("re-invoked %s's responder", rec.To)})
	}
	if err != nil {
		return acts, fmt.Errorf("retry %s: %w", rec.ID, err)
	}
	return acts, nil
}

// escalate hands the record to a person with the SPEC's summary, if still
// qualifies() when re-read under the lock.
func (m *Monitor) escalate(ctx context.Context, scanned *ledger.Record, why, reason, detail string, qualifies func(*ledger.Record) bool) ([]Action, error) {
	rt := m.Router
	rec, err := rt.Transition(ctx, scanned.IssueNumber, scanned.ID, func(r *ledger.Record, now string) error {
		if !r.Status.Open() || !qualifies(r) {
			return errUnchanged
		}
		body := router.EscalationSummary(r, reason, rt.CLI())
		if detail != "" {
			body += "\n" + detail
		}
		r.Thread = append(r.Thread, ledger.Entry{Round: r.Round, From: ledger.HubName, Type: ledger.Escalation, Body: body, Timestamp: now})
		r.Status = ledger.Escalated
		setReason(r, why)
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return []Action{{Kind: ActSkipped, ID: scanned.ID, Issue: scanned.IssueNumber, Reason: why, Detail: "changed since the scan"}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("escalate %s: %w", scanned.ID, err)
	}
	rt.Emit(ctx, events.ClarificationEscalated, rec)
	rt.Release(ctx, rec)
	return []Action{{Kind: ActEscalated, ID: rec.ID, Issue: rec.IssueNumber, Reason: why, Detail: reason}}, nil
}
