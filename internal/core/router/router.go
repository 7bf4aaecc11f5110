// Package router owns the hub ("Agent X") of Local Mode: it applies
// protocol operations to the ledgers on disk, each under its ledger's lock
// (the rules themselves are package protocol's, a pure function), then
// performs what they imply: agent statuses, the event log, and the
// target's responder, invoked with no lock held.
package router

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/delivery"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/responder"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Responder answers for an agent. The hub asks it with no lock held.
type Responder interface {
	Has(agent string) bool
	Respond(ctx context.Context, agent string, req responder.Request) (string, error)
}

// starter is a Responder that can tell, before anything is recorded,
// that an agent's responder cannot start (responder.Exec.CanStart).
type starter interface {
	CanStart(agent string) error
}

// Router is the hub: lock, load, apply (protocol.Apply), write, then the
// side effects the operation implies (agent statuses, the event log, the
// target's responder, asked with no lock held). Build it with New.
type Router struct {
	WS        workspace.Workspace
	Ledgers   *ledger.Store
	Locks     *lock.Locker
	Config    *config.Set
	Clock     clock.Clock
	Events    *events.Log
	Responder Responder // may be nil
	// Audit, when set, gets one line per operation written (audit.go).
	Audit *audit.Trail
	// CLIName is how escalation summaries spell the command.
	CLIName string
	// Warn, when set, hears about side effects that failed after the
	// operation itself landed in the ledger (agent status, event log):
	// they never fail the operation, but must not fail silently either.
	Warn func(format string, args ...any)
	// Settled, when set, keeps a record just resolved as a decision in
	// memory (settled.go); its error is a warning.
	Settled func(ctx context.Context, rec *ledger.Record) error
}

// Options configure New. Only WS is required.
type Options struct {
	// WS is the workspace whose ledgers and agent statuses the hub keeps.
	WS workspace.Workspace
	// Config gives requests their agents and workflow scope. Default: an
	// empty set (no agents are known, so every request is refused).
	Config *config.Set
	// Clock is the protocol's time. Default: the wall clock.
	Clock clock.Clock
	// Locks is the process's lock manager; share one per process so its
	// locks and waits are coordinated. Default: lock.New with Clock.
	Locks *lock.Locker
	// Ledgers is the ledger store. Default: the workspace's, under Locks.
	Ledgers *ledger.Store
	// NoSync skips fsync on the default ledger store (tests and the demo;
	// never the CLI). Ignored when Ledgers is set.
	NoSync bool
	// Events is the event log. Default: none (nothing is logged).
	Events *events.Log
	// Responder answers for agents. Default: none (questions wait in the
	// ledger for the agent's next session).
	Responder Responder
	// CLIName is how escalation summaries spell the command. Default:
	// agentx-hook.
	CLIName string
	// Warn hears about failed side effects. Default: nobody.
	Warn func(format string, args ...any)
	// Audit is the audit trail. Default: none.
	Audit *audit.Trail
	// Settled keeps resolved records as decisions in memory. Default: none.
	Settled func(ctx context.Context, rec *ledger.Record) error
}

// New returns the hub for o.WS, with the defaults Options documents.
func New(o Options) *Router {
	if o.Config == nil {
		o.Config = &config.Set{}
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Locks == nil {
		o.Locks = lock.New(lock.Options{Clock: o.Clock})
	}
	if o.Ledgers == nil {
		o.Ledgers = &ledger.Store{WS: o.WS, Locks: o.Locks, NoSync: o.NoSync}
	}
	return &Router{WS: o.WS, Ledgers: o.Ledgers, Locks: o.Locks, Config: o.Config, Clock: o.Clock, Events: o.Events,
		Responder: o.Responder, CLIName: o.CLIName, Warn: o.Warn, Audit: o.Audit, Settled: o.Settled}
}

// Result is what an operation did.
type Result struct {
	Record ledger.Record
	// Answer is set when a responder answered during this call.
	Answer string
	// Escalated is set when this call escalated the record.
	Escalated bool
	// ResponderError is the responder failure that escalated the record.
	ResponderError error
}

// RequestInput is a new clarification.
type RequestInput struct {
	Issue    int
	From     string
	To       string
	Topic    string
	Question string
	Blocking bool
	Workflow string
	Step     string
}

// Request validates and records a new clarification, then routes it to the
// target's responder when one is configured.
func (r *Router) Request(ctx context.Context, in RequestInput) (*Result, error) {
	return r.Do(ctx, protocol.Op{Verb: protocol.Request, Issue: in.Issue, From: in.From, To: in.To, Topic: in.Topic,
		Text: in.Question, Blocking: in.Blocking, Workflow: in.Workflow, Step: in.Step})
}

// Answer records the target's answer to the current round. by is who
// answers (default: the record's target; a person on GitHub).
func (r *Router) Answer(ctx context.Context, id, by, body string) (*Result, error) {
	return r.Do(ctx, protocol.Op{Verb: protocol.Answer, ID: id, By: by, Text: body})
}

// Ask records the requester's follow-up question as the next round. Past
// maxRounds the record is escalated and the call fails with
// MAX_ROUNDS_EXCEEDED.
func (r *Router) Ask(ctx context.Context, id, by, body string) (*Result, error) {
	return r.Do(ctx, protocol.Op{Verb: protocol.Ask, ID: id, By: by, Text: body})
}

// Resolve closes the record. A person may resolve an escalated record.
func (r *Router) Resolve(ctx context.Context, id, by, body string) (*Result, error) {
	return r.Do(ctx, protocol.Op{Verb: protocol.Resolve, ID: id, By: by, Text: body})
}

// Escalate hands the record to a person with the SPEC's summary.
func (r *Router) Escalate(ctx context.Context, id, by, summary string) (*Result, error) {
	return r.Do(ctx, protocol.Op{Verb: protocol.Escalate, ID: id, By: by, Text: summary})
}

// Abandon closes the record without an outcome.
func (r *Router) Abandon(ctx context.Context, id, by, body string) (*Result, error) {
	return r.Do(ctx, protocol.Op{Verb: protocol.Abandon, ID: id, By: by, Text: body})
}

// Do applies op and, when the record's target now owes an answer, asks its
// responder. On MAX_ROUNDS_EXCEEDED it returns the escalated record with
// the error.
func (r *Router) Do(ctx context.Context, op protocol.Op) (*Result, error) {
	if err := r.checkResponder(op); err != nil {
		return nil, err
	}
	eff, err := r.Apply(ctx, op)
	if eff == nil {
		return nil, err
	}
	if err != nil || !eff.Route {
		return &Result{Record: eff.Record, Escalated: eff.Escalated}, err
	}
	return r.route(ctx, &eff.Record, false)
}

// checkResponder refuses, before anything is written, an operation that
// would route to a responder that cannot start: the request either
// prints its id or leaves nothing behind, and a broken configuration is
// reported on every request until fixed instead of escalating each one.
func (r *Router) checkResponder(op protocol.Op) error {
	st, ok := r.Responder.(starter)
	if !ok {
		return nil
	}
	to := op.To
	switch op.Verb {
	case protocol.Request:
	case protocol.Ask:
		// The record's target, read without the lock: a follow-up never
		// changes who the target is.
		issue, err := protocol.Check(op, protocol.Env{Now: r.Clock.Now(), Config: r.Config, CLI: r.CLIName})
		if err != nil {
			return nil // Apply reports it
		}
		l, err := r.Ledgers.Load(issue)
		if err != nil {
			return nil
		}
		rec := l.Find(op.ID)
		if rec == nil {
			return nil
		}
		to = rec.To
	default:
		return nil
	}
	return st.CanStart(to)
}

// Apply is one locked step: it checks op, applies it to the ledger as it
// is on disk under the ledger's lock, writes it, then logs the events and
// updates the agent statuses the effects name. It does not route. The
// effects are returned with MAX_ROUNDS_EXCEEDED (the ledger changed), nil
// with every other error (nothing was written), including the monitor's
// protocol.ErrNotApplicable.
func (r *Router) Apply(ctx context.Context, op protocol.Op) (*protocol.Effects, error) {
	env := protocol.Env{Now: r.Clock.Now(), Config: r.Config, CLI: r.CLIName}
	issue, err := protocol.Check(op, env)
	if err != nil {
		return nil, err
	}
	var eff *protocol.Effects
	var opErr error
	var beforeHash string
	var beforeLen int
	update := r.Ledgers.Update
	if op.Verb == protocol.Request {
		// A request only appends its record (protocol.Apply): the records
		// already there keep their bytes (ledger.Store.Append).
		update = r.Ledgers.Append
	}
	_, err = update(ctx, issue, func(l *ledger.Ledger) error {
		if op.Verb != protocol.Request {
			env.Now = r.Clock.Now() // the time the record is changed, inside the lock
		}
		beforeHash, beforeLen = "", 0
		if rec := l.Find(op.ID); rec != nil && r.Audit != nil {
			beforeHash, beforeLen = rec.Hash(), len(rec.Thread)
		}
		eff, opErr = protocol.Apply(l, op, env)
		if eff == nil {
			return opErr
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.audit(ctx, op, beforeHash, beforeLen, &eff.Record)
	r.effects(ctx, op, eff)
	return eff, opErr
}

// effects performs what an applied operation implies besides the ledger.
// Failures are warnings: the operation itself has landed.
func (r *Router) effects(ctx context.Context, op protocol.Op, eff *protocol.Effects) {
	rec := &eff.Record
	for _, typ := range eff.Events {
		r.emit(ctx, typ, rec)
	}
	if eff.Release {
		r.release(ctx, rec)
	}
	if eff.Blocked != "" {
		r.setStatus(ctx, eff.Blocked, func(s *agentstatus.Status) {
			s.Status = agentstatus.BlockedClarification
			s.Issue = agentstatus.Ptr(rec.IssueNumber)
			s.ClarificationID = agentstatus.Ptr(rec.ID)
			s.WaitingOn = agentstatus.Ptr(rec.To)
			if op.Verb == protocol.Request {
				s.RespondingTo = nil
			}
		})
	}
	r.settle(ctx, eff)
	r.bumpInbox(rec)
}

// bumpInbox tells the requester's running sessions that news arrived (an
// answer, a resolution or an escalation someone else wrote): their next
// mid-session hook delivers it (package delivery).
func (r *Router) bumpInbox(rec *ledger.Record) {
	if n := len(rec.Thread); n == 0 || !rec.ForRequester(&rec.Thread[n-1]) {
		return
	}
	if err := delivery.Bump(r.WS); err != nil {
		r.warn(err, "inbox stamp")
	}
}

// route invokes the target's responder for the record's current question.
// No lock is held while it runs: a responder may take minutes.
func (r *Router) route(ctx context.Context, rec *ledger.Record, retry bool) (*Result, error) {
	res := &Result{Record: *rec}
	if r.Responder == nil || !r.Responder.Has(rec.To) {
		return res, nil
	}
	q := rec.LastOf(ledger.Question)
	question := ""
	if q != nil {
		question = q.Body
	}
	if st, ok := r.Responder.(starter); ok {
		// The record stays as it is (a monitor retry reports this each
		// time; the SLA still escalates a question nobody answers).
		if err := st.CanStart(rec.To); err != nil {
			return &Result{Record: *rec, ResponderError: err}, err
		}
	}
	r.setStatus(ctx, rec.To, func(s *agentstatus.Status) {
		s.Status = agentstatus.Clarifying
		s.Issue = agentstatus.Ptr(rec.IssueNumber)
		s.ClarificationID = agentstatus.Ptr(rec.ID)
		s.RespondingTo = agentstatus.Ptr(rec.From)
		s.WaitingOn = nil
	})
	answer, rerr := r.Responder.Respond(ctx, rec.To, responder.Request{
		Issue: rec.IssueNumber, ID: rec.ID, From: rec.From, To: rec.To, Topic: rec.Topic,
		Round: rec.Round, Blocking: rec.Blocking, Question: question, Thread: responder.Thread(rec.Thread), Retry: retry,
	})
	// The record's own issue finds it, so records with legacy ids written
	// by the old tools are answered and escalated too.
	if rerr != nil && ctx.Err() != nil {
		// The caller's deadline (a hook's) passed, or the caller was
		// interrupted (Ctrl-C, SIGTERM cancel its context), while the
		// responder worked: the caller stopped, the responder did not
		// fail. An operator's interrupt must not change protocol state
		// (issue 26). Nothing is escalated; the record waits for the next
		// check, and the target is no longer marked as answering it.
		r.setStatus(context.WithoutCancel(ctx), rec.To, func(s *agentstatus.Status) {
			if s.ClarificationID != nil && *s.ClarificationID == rec.ID {
				s.Status = agentstatus.Working
				s.ClarificationID, s.RespondingTo = nil, nil
			}
		})
		return res, rerr
	}
	if rerr != nil {
		// A signal may have stopped the responder: the escalation and the
		// status restore must still land (the lock wait bounds them).
		eff, err := r.Apply(context.WithoutCancel(ctx), protocol.Op{Verb: protocol.Escalate, Issue: rec.IssueNumber, InIssue: true, ID: rec.ID,
			By: ledger.HubName, Reason: "responder failed: " + rerr.Error()})
		if err != nil {
			return nil, err
		}
		return &Result{Record: eff.Record, Escalated: true, ResponderError: rerr}, rerr
	}
	// Redact before the cut: cut first, a token straddling the limit would
	// lose the tail its pattern needs and its head would be kept.
	// A longer answer is kept whole in state/answers and cut with a notice.
	answer = responder.Fit(r.WS.Root, r.WS.AnswersDir(), rec.ID, rec.Round, sanitize.Clean(answer), validate.MaxBody)
	eff, err := r.Apply(ctx, protocol.Op{Verb: protocol.Answer, Issue: rec.IssueNumber, InIssue: true, ID: rec.ID, By: rec.To, Text: answer})
	if err != nil {
		return nil, err
	}
	return &Result{Record: eff.Record, Answer: answer}, nil
}

// Get returns the record with id.
func (r *Router) Get(id string) (*ledger.Record, error) {
	issue, err := validate.ClarificationID(id)
	if err != nil {
		return nil, err
	}
	l, err := r.Ledgers.Load(issue)
	if err != nil {
		return nil, err
	}
	rec := l.Find(id)
	if rec == nil {
		return nil, protocol.NotFound(id)
	}
	return rec, nil
}

// Retry re-invokes the target's responder for a waiting record (the
// monitor's auto-retry). It reports whether a responder answered.
func (r *Router) Retry(ctx context.Context, rec *ledger.Record) (*Result, error) {
	return r.route(ctx, rec, true)
}

// release returns both agents of a settled round to working, but only
// where their status still refers to this record.
func (r *Router) release(ctx context.Context, rec *ledger.Record) {
	path := r.WS.AgentStatusFile()
	err := agentstatus.Update(ctx, r.Locks, path, func(f *agentstatus.File) error {
		now := clock.Format(r.Clock.Now())
		for _, agent := range []string{rec.From, rec.To} {
			s := f.Get(agent)
			if s == nil || s.ClarificationID == nil || *s.ClarificationID != rec.ID {
				continue
			}
			if s.Status == agentstatus.BlockedClarification || s.Status == agentstatus.Clarifying {
				s.Status = agentstatus.Working
				s.ClarificationID, s.WaitingOn, s.RespondingTo = nil, nil, nil
				s.LastActivity = now
			}
		}
		return nil
	})
	r.warn(err, "agent status not updated")
}

// setStatus updates one agent's status; failures here never fail the
// protocol operation that already landed in the ledger.
func (r *Router) setStatus(ctx context.Context, agent string, fn func(*agentstatus.Status)) {
	err := agentstatus.Update(ctx, r.Locks, r.WS.AgentStatusFile(), func(f *agentstatus.File) error {
		s := f.Ensure(agent)
		fn(s)
		s.LastActivity = clock.Format(r.Clock.Now())
		return nil
	})
	r.warn(err, "agent status not updated")
}

func (r *Router) warn(err error, what string) {
	if err != nil && r.Warn != nil {
		r.Warn("%s: %v", what, err)
	}
}

func (r *Router) emit(ctx context.Context, typ string, rec *ledger.Record) {
	if r.Events == nil {
		return
	}
	p := events.ClarificationPayload{
		ClarificationID: rec.ID, IssueNumber: rec.IssueNumber, FromAgent: rec.From, ToAgent: rec.To,
		Topic: rec.Topic, Blocking: rec.Blocking, Timestamp: r.Clock.Now().UnixMilli(),
	}
	if typ == events.ClarificationFollowup {
		p.Round = rec.Round
	}
	err := r.Events.Append(ctx, typ, p)
	r.warn(err, typ+" not logged")
}
