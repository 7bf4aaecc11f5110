// Package router owns the clarification protocol's decisions: the hub
// ("Agent X") that validates a request against the workflow scope, writes
// each round to the ledger under its lock, checks every transition against
// the record's current status, escalates at the round limit, invokes the
// target's responder, and keeps agent statuses and the event log in step.
// Terminals and GitHub comments both reach the protocol through it, so the
// same operation gives the same ledger on either surface.
package router

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/responder"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Responder answers for an agent. The hub asks it with no lock held.
type Responder interface {
	Has(agent string) bool
	Respond(ctx context.Context, agent string, req responder.Request) (string, error)
}

// Router is the hub.
type Router struct {
	WS        workspace.Workspace
	Ledgers   *ledger.Store
	Locks     *lock.Locker
	Config    *config.Set
	Clock     clock.Clock
	Events    *events.Log
	Responder Responder // may be nil
	// CLIName is how escalation summaries spell the command (default agentx-hook).
	CLIName string
	// Warn, when set, hears about side effects that failed after the
	// operation itself landed in the ledger (agent status, event log):
	// they never fail the operation, but must not fail silently either.
	Warn func(format string, args ...any)
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

// slaKey is our own record key for the SLA in minutes, so follow-up rounds
// and the monitor can push staleAfter by the record's SLA. Old readers keep
// it as an unknown key.
const slaKey = "slaMinutes"

// Request validates and records a new clarification, then routes it to the
// target's responder when one is configured.
func (r *Router) Request(ctx context.Context, in RequestInput) (*Result, error) {
	if err := validate.IssueNumber(in.Issue); err != nil {
		return nil, err
	}
	if err := validate.Agent("--from", in.From); err != nil {
		return nil, err
	}
	if err := validate.Agent("--to", in.To); err != nil {
		return nil, err
	}
	if err := validate.Topic(in.Topic); err != nil {
		return nil, err
	}
	if err := validate.Body("question", in.Question); err != nil {
		return nil, err
	}
	known := r.Config.KnownAgents()
	for _, a := range []string{in.From, in.To} {
		if !known[a] {
			return nil, errcode.New(errcode.InvalidInput, "unknown agent %q (known: %s)", a, strings.Join(sortedKeys(known), ", "))
		}
	}
	if in.From == in.To {
		return nil, errcode.New(errcode.InvalidInput, "agent %q cannot clarify with itself", in.From)
	}
	scope, err := r.Config.ResolveScope(in.Workflow, in.Step, in.From, in.Blocking)
	if err != nil {
		return nil, err
	}
	if !scope.Allows(in.To) {
		allowed := "none"
		if len(scope.CanClarify) > 0 {
			allowed = strings.Join(scope.CanClarify, ", ")
		}
		return nil, errcode.New(errcode.ScopeViolation, "agent '%s' cannot clarify with '%s' (workflow %s, step %s). Allowed: [%s]",
			in.From, in.To, scope.Workflow, scope.Step, allowed)
	}
	if in.Blocking && !scope.BlockingAllowed {
		return nil, errcode.New(errcode.ScopeViolation, "step %s of workflow %s does not allow blocking clarifications", scope.Step, scope.Workflow).
			WithHint("pass --non-blocking")
	}

	now := r.Clock.Now()
	ts := clock.Format(now)
	var rec ledger.Record
	_, err = r.Ledgers.Update(ctx, in.Issue, func(l *ledger.Ledger) error {
		rec = ledger.Record{
			ID: l.NextID(), IssueNumber: in.Issue, From: in.From, To: in.To, Topic: in.Topic,
			Blocking: in.Blocking, Status: ledger.Pending, Round: 1, MaxRounds: scope.MaxRounds,
			Created: ts, StaleAfter: clock.Format(now.Add(scope.SLA)),
			Thread: []ledger.Entry{{Round: 1, From: in.From, Type: ledger.Question, Body: in.Question, Timestamp: ts}},
		}
		rec.SetExtra(slaKey, json.RawMessage(strconv.Itoa(int(scope.SLA/time.Minute))))
		l.Clarifications = append(l.Clarifications, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.emit(ctx, events.ClarificationRequested, &rec)
	if in.Blocking {
		r.setStatus(ctx, in.From, func(s *agentstatus.Status) {
			s.Status = agentstatus.BlockedClarification
			s.Issue = agentstatus.Ptr(in.Issue)
			s.ClarificationID = agentstatus.Ptr(rec.ID)
			s.WaitingOn = agentstatus.Ptr(in.To)
			s.RespondingTo = nil
		})
	}
	return r.route(ctx, &rec, false)
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
	r.setStatus(ctx, rec.To, func(s *agentstatus.Status) {
		s.Status = agentstatus.Clarifying
		s.Issue = agentstatus.Ptr(rec.IssueNumber)
		s.ClarificationID = agentstatus.Ptr(rec.ID)
		s.RespondingTo = agentstatus.Ptr(rec.From)
		s.WaitingOn = nil
	})
	answer, rerr := r.Responder.Respond(ctx, rec.To, responder.Request{
		Issue: rec.IssueNumber, ID: rec.ID, From: rec.From, To: rec.To, Topic: rec.Topic,
		Round: rec.Round, Blocking: rec.Blocking, Question: question, Thread: rec.Thread, Retry: retry,
	})
	if rerr != nil {
		esc, err := r.escalate(ctx, rec.IssueNumber, rec.ID, ledger.HubName, "", "responder failed: "+rerr.Error())
		if err != nil {
			return nil, err
		}
		esc.ResponderError = rerr
		return esc, rerr
	}
	answer = Shorten(answer, validate.MaxBody)
	out, err := r.answer(ctx, rec.IssueNumber, rec.ID, rec.To, answer)
	if err != nil {
		return nil, err
	}
	out.Answer = answer
	return out, nil
}

// Answer records the target's answer to the current round. by is who
// answers (default: the record's target; a person on GitHub).
func (r *Router) Answer(ctx context.Context, id, by, body string) (*Result, error) {
	issue, err := validate.ClarificationID(id)
	if err != nil {
		return nil, err
	}
	return r.answer(ctx, issue, id, by, body)
}

// answer records an answer on a record found by issue and id. Internal
// callers (a responder's answer, the monitor's retry) come here with the
// record's own issue, so records with legacy ids (`clar-test-001`) written
// by the old tools are answered too.
func (r *Router) answer(ctx context.Context, issue int, id, by, body string) (*Result, error) {
	if err := validate.Body("answer", body); err != nil {
		return nil, err
	}
	rec, err := r.transition(ctx, issue, id, func(rec *ledger.Record, now string) error {
		if !rec.Status.Waiting() {
			return badTransition(rec, "answer", "pending or stale")
		}
		if by == "" {
			by = rec.To
		}
		rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: by, Type: ledger.Answer, Body: body, Timestamp: now})
		rec.Status = ledger.Answered
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.emit(ctx, events.ClarificationAnswered, rec)
	r.release(ctx, rec)
	return &Result{Record: *rec}, nil
}

// Ask records the requester's follow-up question as the next round. Past
// maxRounds the record is escalated and the call fails with
// MAX_ROUNDS_EXCEEDED.
func (r *Router) Ask(ctx context.Context, id, by, body string) (*Result, error) {
	if err := validate.Body("question", body); err != nil {
		return nil, err
	}
	issue, err := validate.ClarificationID(id)
	if err != nil {
		return nil, err
	}
	exceeded := false
	rec, err := r.transition(ctx, issue, id, func(rec *ledger.Record, now string) error {
		if rec.Status != ledger.Answered {
			return badTransition(rec, "ask a follow-up on", "answered")
		}
		if by == "" {
			by = rec.From
		}
		if rec.Round+1 > rec.MaxRounds {
			exceeded = true
			reason := fmt.Sprintf("reached the round limit (%d of %d rounds used)", rec.Round, rec.MaxRounds)
			rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: ledger.HubName, Type: ledger.Escalation,
				Body: EscalationSummary(rec, reason, r.cli()), Timestamp: now})
			rec.Status = ledger.Escalated
			return nil
		}
		rec.Round++
		rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: by, Type: ledger.Question, Body: body, Timestamp: now})
		rec.Status = ledger.Pending
		rec.StaleAfter = clock.Format(r.Clock.Now().Add(SLA(rec)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if exceeded {
		r.emit(ctx, events.ClarificationEscalated, rec)
		r.release(ctx, rec)
		e := errcode.New(errcode.MaxRoundsExceeded, "%s reached max rounds (%d). Auto-escalated", rec.ID, rec.MaxRounds)
		e.Hint = fmt.Sprintf("a person decides: %s clarify resolve %s --body \"<decision>\"", r.cli(), rec.ID)
		return &Result{Record: *rec, Escalated: true}, e
	}
	if rec.Blocking {
		r.setStatus(ctx, rec.From, func(s *agentstatus.Status) {
			s.Status = agentstatus.BlockedClarification
			s.Issue = agentstatus.Ptr(rec.IssueNumber)
			s.ClarificationID = agentstatus.Ptr(rec.ID)
			s.WaitingOn = agentstatus.Ptr(rec.To)
		})
	}
	return r.route(ctx, rec, false)
}

// Resolve closes the record. A person may resolve an escalated record.
func (r *Router) Resolve(ctx context.Context, id, by, body string) (*Result, error) {
	if body == "" {
		body = "Resolved."
	}
	return r.close(ctx, id, by, "resolution", body, ledger.Resolved)
}

// close settles a record that is still open or escalated, as resolved or
// abandoned, with a resolution entry.
func (r *Router) close(ctx context.Context, id, by, field, body string, to ledger.Status) (*Result, error) {
	if err := validate.Body(field, body); err != nil {
		return nil, err
	}
	issue, err := validate.ClarificationID(id)
	if err != nil {
		return nil, err
	}
	verb := map[ledger.Status]string{ledger.Resolved: "resolve", ledger.Abandoned: "abandon"}[to]
	rec, err := r.transition(ctx, issue, id, func(rec *ledger.Record, now string) error {
		switch rec.Status {
		case ledger.Pending, ledger.Answered, ledger.Stale, ledger.Escalated:
		default:
			return badTransition(rec, verb, "pending, answered, stale or escalated")
		}
		if by == "" {
			by = rec.From
		}
		text := body
		if to == ledger.Abandoned {
			// The reference has no "abandonment" entry type; a resolution
			// entry with the reason keeps old readers working.
			text = "Abandoned: " + body
		}
		rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: by, Type: ledger.Resolution, Body: text, Timestamp: now})
		rec.Status = to
		if to == ledger.Resolved {
			rec.ResolvedAt = &now
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if to == ledger.Resolved {
		r.emit(ctx, events.ClarificationResolved, rec)
	}
	r.release(ctx, rec)
	return &Result{Record: *rec}, nil
}

// Escalate hands the record to a person with the SPEC's summary.
func (r *Router) Escalate(ctx context.Context, id, by, summary string) (*Result, error) {
	if summary != "" {
		if err := validate.Body("summary", summary); err != nil {
			return nil, err
		}
	}
	if by == "" {
		by = ledger.HubName
	}
	issue, err := validate.ClarificationID(id)
	if err != nil {
		return nil, err
	}
	return r.escalate(ctx, issue, id, by, summary, "escalated by "+by)
}

func (r *Router) escalate(ctx context.Context, issue int, id, by, summary, reason string) (*Result, error) {
	rec, err := r.transition(ctx, issue, id, func(rec *ledger.Record, now string) error {
		if !rec.Status.Open() {
			return badTransition(rec, "escalate", "pending, answered or stale")
		}
		body := EscalationSummary(rec, reason, r.cli())
		if summary != "" {
			body = summary + "\n\n" + body
		}
		rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: by, Type: ledger.Escalation, Body: body, Timestamp: now})
		rec.Status = ledger.Escalated
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.emit(ctx, events.ClarificationEscalated, rec)
	r.release(ctx, rec)
	return &Result{Record: *rec, Escalated: true}, nil
}

// Abandon closes the record without an outcome.
func (r *Router) Abandon(ctx context.Context, id, by, body string) (*Result, error) {
	if body == "" {
		body = "Abandoned."
	}
	return r.close(ctx, id, by, "reason", body, ledger.Abandoned)
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
		return nil, notFound(id)
	}
	return rec, nil
}

// Retry re-invokes the target's responder for a waiting record (the
// monitor's auto-retry). It reports whether a responder answered.
func (r *Router) Retry(ctx context.Context, rec *ledger.Record) (*Result, error) {
	return r.route(ctx, rec, true)
}

// transition applies fn to record id of issue inside the ledger's lock,
// after re-reading it: the status fn checks is the one on disk now.
func (r *Router) transition(ctx context.Context, issue int, id string, fn func(rec *ledger.Record, now string) error) (*ledger.Record, error) {
	if err := validate.IssueNumber(issue); err != nil {
		return nil, err
	}
	var out ledger.Record
	_, err := r.Ledgers.Update(ctx, issue, func(l *ledger.Ledger) error {
		rec := l.Find(id)
		if rec == nil {
			return notFound(id)
		}
		if err := fn(rec, clock.Format(r.Clock.Now())); err != nil {
			return err
		}
		out = *rec
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Transition exposes a checked in-lock change to other core packages (the
// monitor): fn sees the record as it is on disk now. The record is found by
// its id within issue, so legacy ids written by the old tools work too.
func (r *Router) Transition(ctx context.Context, issue int, id string, fn func(rec *ledger.Record, now string) error) (*ledger.Record, error) {
	return r.transition(ctx, issue, id, fn)
}

// Emit appends a clarification event (exported for the monitor).
func (r *Router) Emit(ctx context.Context, typ string, rec *ledger.Record) { r.emit(ctx, typ, rec) }

// Release returns both agents to working (exported for the monitor).
func (r *Router) Release(ctx context.Context, rec *ledger.Record) { r.release(ctx, rec) }

// CLI is the command name used in summaries.
func (r *Router) CLI() string { return r.cli() }

func notFound(id string) error {
	return errcode.New(errcode.NotFound, "Clarification %s not found in ledger", id).
		WithHint("list open clarifications with `clarify --issue N`")
}

func badTransition(rec *ledger.Record, verb, want string) error {
	return errcode.New(errcode.InvalidInput, "cannot %s %s: its status is %s (must be %s)", verb, rec.ID, rec.Status, want)
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
	err := r.Events.Append(ctx, typ, events.ClarificationPayload{
		ClarificationID: rec.ID, IssueNumber: rec.IssueNumber, FromAgent: rec.From, ToAgent: rec.To,
		Topic: rec.Topic, Blocking: rec.Blocking, Timestamp: clock.EpochMillis(r.Clock.Now()),
	})
	r.warn(err, typ+" not logged")
}

func (r *Router) cli() string {
	if r.CLIName != "" {
		return r.CLIName
	}
	return "agentx-hook"
}

// SLA returns the record's SLA: our slaMinutes key, else the first round's
// window (staleAfter - created), else the default.
func SLA(rec *ledger.Record) time.Duration {
	if raw := rec.ExtraValue(slaKey); raw != nil {
		if n, err := strconv.Atoi(string(raw)); err == nil && n > 0 {
			return time.Duration(n) * time.Minute
		}
	}
	if d := rec.StaleAfterTime().Sub(rec.CreatedTime()); d > 0 && !rec.CreatedTime().IsZero() {
		return d
	}
	return config.DefaultSLAMinutes * time.Minute
}

// EscalationSummary is the text a person reads when a clarification is
// handed to them: the topic, each agent's latest position, the rounds used
// and the exact commands that settle it.
func EscalationSummary(rec *ledger.Record, reason, cli string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[ESCALATED] Clarification %q (%s) could not be resolved: %s.\n", rec.Topic, rec.ID, reason)
	fmt.Fprintf(&b, "Agents: %s -> %s. Rounds used: %d of %d.\n", rec.From, rec.To, rec.Round, rec.MaxRounds)
	if q := rec.LastOf(ledger.Question); q != nil {
		fmt.Fprintf(&b, "%s's latest question: %s\n", q.From, Shorten(oneLine(q.Body), 300))
	}
	if a := rec.LastOf(ledger.Answer); a != nil {
		fmt.Fprintf(&b, "%s's latest answer: %s\n", a.From, Shorten(oneLine(a.Body), 300))
	} else {
		fmt.Fprintf(&b, "%s has not answered.\n", rec.To)
	}
	b.WriteString("Options:\n")
	fmt.Fprintf(&b, "  1. Decide and resolve: %s clarify resolve %s --body \"<decision>\"\n", cli, rec.ID)
	fmt.Fprintf(&b, "  2. Drop the question: %s clarify abandon %s --body \"<why>\"\n", cli, rec.ID)
	fmt.Fprintf(&b, "  On GitHub: /clarify resolve %s <decision>", rec.ID)
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Shorten cuts s to at most max characters on a character boundary.
func Shorten(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	return string(runes[:max-3]) + "..."
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
