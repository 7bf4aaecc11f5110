// Package monitor owns the clarification monitor: it finds stale, stuck and
// deadlocked clarifications across every issue and acts on them (mark
// stale and retry the target's responder, escalate at the second timeout,
// escalate circular conversations, break wait-for cycles). There is no
// daemon: hooks and commands run one check as a side effect, so a check
// must be cheap (see Scanner) and safe to run from many processes at once
// (each action re-reads its record under the ledger lock and re-checks it,
// so it happens once and never to a record settled since the scan).
//
// Deciding is a pure function of the records, the time and the priority
// list (Detect, then Plan.Steps: protocol operations); acting applies each
// step through protocol.Apply, under the ledger's lock in Local Mode
// (Monitor.Check), in memory in GitHub Mode (ApplySteps).
package monitor

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentx-dev/agentx/internal/core/artifact"
	"os"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/router"
)

// Monitor runs checks against one workspace through its hub.
type Monitor struct {
	Router  *router.Router
	Scanner *Scanner
}

// New returns the monitor of the router's workspace.
func New(rt *router.Router) *Monitor {
	sc := NewScanner(rt.WS)
	if rt.Ledgers != nil {
		sc.Written = rt.Ledgers
	}
	return &Monitor{Router: rt, Scanner: sc}
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
	// ArtifactNotices and StaleArtifacts are filled by CheckArtifacts:
	// the upstream changes announced by this check, every stale
	// artifact now.
	ArtifactNotices []ArtifactNotice
	StaleArtifacts  []artifact.Finding
	Issues          []int
	Open            []ledger.Record
	Plan            Plan
	Actions         []Action
	// Warnings are ledgers the scan skipped (unreadable, corrupt).
	Warnings []error
	// Failures are actions that failed (a lock timeout, a write error).
	Failures  []error
	Scanned   int // ledger files read (not skipped by the index)
	CheckedAt time.Time
	// Undelivered is news for a requester that reached none of its
	// sessions within the record's SLA (delivery receipts, issue 34).
	Undelivered []UndeliveredItem
}

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
	rep.Warnings = append(rep.Warnings, unreadableSLAs(scan.Open)...)
	rep.Undelivered = Undelivered(scan.Open, now)
	m.Act(ctx, rep)
	return rep, nil
}

// OpenNow is the open records as they are after rep's check: rep.Open,
// or a new scan when the check acted on some of them (a failed scan keeps
// rep.Open).
func (m *Monitor) OpenNow(rep *Report) []ledger.Record {
	if len(rep.Actions) > 0 {
		if scan, err := m.Scanner.Scan(); err == nil {
			return scan.Open
		}
	}
	return rep.Open
}

// Act carries out rep.Plan through the hub: each step is one protocol
// operation under its ledger's lock, which re-checks the record as it is
// now. It appends to rep.Actions and rep.Failures.
//
// The monitor runs inside every hook and command, so it never waits for a
// ledger another process holds: a ledger whose lock is visibly held (a
// live lock, ours or the old tools') is skipped and checked next time, and
// a lock taken between that look and ours is waited for at most TryWait.
// A busy ledger costs no more than one of these waits, however many of its
// records are due.
func (m *Monitor) Act(ctx context.Context, rep *Report) {
	busy := map[int]bool{}
	for _, st := range rep.Plan.Steps() {
		if st.Op.Verb != "" && (busy[st.Op.Issue] || m.held(st.Op.Issue)) {
			busy[st.Op.Issue] = true
			rep.Actions = append(rep.Actions, Action{Kind: ActSkipped, ID: st.Op.ID, Issue: st.Op.Issue, Reason: st.Why,
				Detail: "its ledger is locked by another process; checked next time"})
			continue
		}
		var acts []Action
		var err error
		switch st.Op.Verb {
		case "":
			rep.Actions = append(rep.Actions, Action{Kind: ActContinued, ID: st.Op.ID, Issue: st.Op.Issue, Reason: st.Why, Detail: st.Detail})
			continue
		case protocol.MarkStale:
			acts, err = m.firstTimeout(ctx, st)
		default:
			acts, err = m.escalate(ctx, st)
		}
		if errcode.CodeOf(err) == errcode.LockTimeout {
			busy[st.Op.Issue] = true
			rep.Actions = append(rep.Actions, Action{Kind: ActSkipped, ID: st.Op.ID, Issue: st.Op.Issue, Reason: st.Why,
				Detail: "its ledger is locked by another process; checked next time"})
			continue
		}
		rep.add(acts, err)
	}
}

// TryWait is the most a check waits for one ledger's lock that was free
// when it looked.
const TryWait = 250 * time.Millisecond

// held reports whether the ledger of issue is locked by a holder that is
// not stale (by the lock's own timestamp, else its modification time), as
// the lock package would judge it with its default threshold. A stale or
// unreadable lock is left to the lock package, which takes it over.
func (m *Monitor) held(issue int) bool {
	path := lock.PathFor(m.Router.WS.LedgerFile(issue))
	info, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if !info.Mode().IsRegular() {
		return false // a FIFO would block the read; a lock it is not
	}
	data, err := atomicfile.ReadState(path)
	if err != nil {
		return false
	}
	at := info.ModTime()
	if _, acquired, ok := lock.ParseContent(data); ok && !acquired.IsZero() {
		at = acquired
	}
	return m.Router.Clock.Now().Sub(at) < lock.DefaultStaleAfter
}

func (rep *Report) add(acts []Action, err error) {
	rep.Actions = append(rep.Actions, acts...)
	if err != nil {
		rep.Failures = append(rep.Failures, err)
	}
}

func skipped(st Step) []Action {
	return []Action{{Kind: ActSkipped, ID: st.Op.ID, Issue: st.Op.Issue, Reason: st.Why, Detail: "changed since the scan"}}
}

// firstTimeout marks the record stale, pushes staleAfter out by one SLA
// and re-invokes the target's responder once, if it has one.
func (m *Monitor) firstTimeout(ctx context.Context, st Step) ([]Action, error) {
	rt := m.Router
	eff, err := rt.Apply(ledger.WithLockWait(ctx, TryWait), st.Op)
	if errors.Is(err, protocol.ErrNotApplicable) {
		return skipped(st), nil
	}
	if err != nil {
		return nil, fmt.Errorf("mark %s stale: %w", st.Op.ID, err)
	}
	rec := &eff.Record
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
	case err == nil:
		acts = append(acts, Action{Kind: ActRetried, ID: rec.ID, Issue: rec.IssueNumber, Reason: ReasonStale,
			Detail: fmt.Sprintf("re-invoked %s's responder", rec.To)})
	}
	// Otherwise the responder was not run (it cannot start): the failure
	// below says so, and the record stays stale for the second timeout.
	if err != nil {
		return acts, fmt.Errorf("retry %s: %w", rec.ID, err)
	}
	return acts, nil
}

// escalate hands the record to a person with the SPEC's summary, if it
// still qualifies when re-read under the lock.
func (m *Monitor) escalate(ctx context.Context, st Step) ([]Action, error) {
	eff, err := m.Router.Apply(ledger.WithLockWait(ctx, TryWait), st.Op)
	if errors.Is(err, protocol.ErrNotApplicable) {
		return skipped(st), nil
	}
	if err != nil {
		return nil, fmt.Errorf("escalate %s: %w", st.Op.ID, err)
	}
	return []Action{{Kind: ActEscalated, ID: eff.Record.ID, Issue: eff.Record.IssueNumber, Reason: st.Why, Detail: st.Op.Reason}}, nil
}
