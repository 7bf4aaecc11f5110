// Package protocol owns the clarification protocol's rules as a pure
// function: one typed operation (Op) applied to a ledger value at a given
// time (Apply) gives the new ledger plus the events and agent-status
// changes it implies (Effects). It reads no file, takes no lock, runs no
// responder and calls no API, so the same operation gives the same ledger
// whoever applies it: the router in Local Mode (under the ledger's lock,
// then performing the effects), GitHub Mode on a ledger read from the API,
// or the monitor acting on its plan.
package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// Op is one operation on one issue's ledger.
type Op struct {
	Verb Verb
	// ID is the record acted on (every verb but Request).
	ID string
	// Issue is the ledger's issue. Request requires it. For the other
	// verbs 0 means "read it from ID" (CLR-<issue>-<NNN>, validated); a set
	// Issue finds ID within that ledger as it is, so records with the old
	// tools' legacy ids (`clar-test-001`) can be acted on too.
	Issue int
	// InIssue says Issue names the ledger even when it is 0 (the old chat
	// integration's issue 0, whose legacy ids carry no issue).
	InIssue bool
	// By is who acts; "" is the verb's default: the target answers, the
	// requester asks, resolves and abandons, agent-x escalates.
	By string
	// Text is the question, answer, resolution, reason or summary.
	// Resolve and Abandon have a default; Escalate's is optional.
	Text string

	// From, To, Topic, Blocking, Workflow and Step describe a Request.
	From, To, Topic string
	Blocking        bool
	Workflow, Step  string

	// Reason is why a record is escalated, as its summary says it.
	// Escalate defaults it to "escalated by <by>"; the monitor's
	// escalations and a failed responder set it.
	Reason string
	// Detail is appended to a monitor escalation's summary.
	Detail string
	// Flipped marks an EscalateStuck judged on a pair of records asking
	// the same topic in opposite directions: the record itself need not
	// repeat a question.
	Flipped bool
	// Person says By is a person whose permission the caller checked (the
	// Action's commenter): any party's verb is theirs to use (Authorize).
	// `--as human:NAME` sets it too.
	Person bool
}

// Env is what an operation needs besides the ledger.
type Env struct {
	// Now is the time of the operation.
	Now time.Time
	// Config gives a Request its agents and workflow scope (nil: none).
	Config *config.Set
	// CLI is how escalation summaries spell the command ("" means
	// agentx-hook).
	CLI string
}

func (e Env) cli() string {
	if e.CLI != "" {
		return e.CLI
	}
	return "agentx-hook"
}

// Effects is what an applied operation implies beyond the ledger.
type Effects struct {
	// Record is the record as the operation left it.
	Record ledger.Record
	// Events are the event types to log for Record, in order.
	Events []string
	// Blocked is the agent now waiting on Record ("" for none).
	Blocked string
	// Release returns both agents of Record to working, where their
	// status still names Record.
	Release bool
	// Escalated is set when the operation escalated Record.
	Escalated bool
	// Route is set when Record's target owes a new answer, so its
	// responder (if it has one) is asked.
	Route bool
}

// ErrNotApplicable is returned by the monitor's verbs when the record no
// longer qualifies (it changed since the monitor looked).
var ErrNotApplicable = errors.New("record changed since the scan")

// slaKey is our own record key for the SLA in minutes, so follow-up rounds
// and the monitor can push staleAfter by the record's SLA. Old readers keep
// it as an unknown key.
const slaKey = "slaMinutes"

// Check validates what an operation says about itself, without the ledger,
// in the order users have always seen the errors, and returns the issue
// whose ledger it acts on. Callers that lock run it first, so bad input
// touches no file; Apply runs it again.
func Check(op Op, env Env) (int, error) {
	switch op.Verb {
	case Request:
		_, _, err := checkRequest(op, env)
		return op.Issue, err
	case Answer:
		issue, err := issueOf(op)
		if err != nil {
			return 0, err
		}
		if err := validate.Body(info(Answer).Field, op.Text); err != nil {
			return 0, err
		}
		return issue, validate.LedgerIssueNumber(issue)
	case Ask:
		if err := validate.Body(info(Ask).Field, op.Text); err != nil {
			return 0, err
		}
	case Resolve, Abandon:
		if err := validate.Body(info(op.Verb).Field, textOf(op)); err != nil {
			return 0, err
		}
	case Escalate:
		if op.Text != "" {
			if err := validate.Body(info(Escalate).Field, op.Text); err != nil {
				return 0, err
			}
		}
	case MarkStale, EscalateStale, EscalateStuck, EscalateDeadlock:
	default:
		return 0, errcode.New(errcode.InvalidInput, "unknown operation %q", op.Verb)
	}
	issue, err := issueOf(op)
	if err != nil {
		return 0, err
	}
	return issue, validate.LedgerIssueNumber(issue)
}

func issueOf(op Op) (int, error) {
	if op.Issue != 0 || op.InIssue {
		return op.Issue, nil
	}
	return validate.ClarificationID(op.ID)
}

func textOf(op Op) string {
	if op.Text == "" {
		return info(op.Verb).Default
	}
	return op.Text
}

// Apply applies op to l at env.Now. On success l holds the new state and
// the effects say what else must follow. An error with nil effects left l
// untouched; an error with effects (MAX_ROUNDS_EXCEEDED: the follow-up
// escalated the record instead) changed l, which must be written like any
// other change. Validation errors are typed (errcode) with the messages
// users see; ErrNotApplicable says a monitor verb no longer applies.
//
// Every text an operation stores (question, answer, resolution, reason,
// escalation summary, topic) is sanitised here, after validation and
// before it reaches the record: private regions and secrets never enter a
// ledger, whichever surface the operation came from (CLI, responder,
// issue comment, monitor), and ledgers are committed and mirrored.
func Apply(l *ledger.Ledger, op Op, env Env) (*Effects, error) {
	if op.Verb == Request {
		scope, to, err := checkRequest(op, env)
		if err != nil {
			return nil, err
		}
		if op, err = sanitized(op); err != nil {
			return nil, err
		}
		op.To = to
		return request(l, op, env, scope)
	}
	if _, err := Check(op, env); err != nil {
		return nil, err
	}
	op, err := personOp(op)
	if err != nil {
		return nil, err
	}
	if op, err = sanitized(op); err != nil {
		return nil, err
	}
	rec := l.Find(op.ID)
	if rec == nil {
		return nil, NotFound(op.ID)
	}
	if err := roundsValid(rec); err != nil {
		return nil, err
	}
	if err := Authorize(rec, op); err != nil {
		return nil, err
	}
	now := clock.Format(env.Now)
	switch op.Verb {
	case Answer:
		return answer(rec, op, now)
	case Ask:
		return ask(rec, op, env, now)
	case Resolve, Abandon:
		return closeRecord(rec, op, now)
	case Escalate:
		return escalate(rec, op, env, now)
	case MarkStale:
		return markStale(rec, env)
	default:
		return monitorEscalate(rec, op, env, now)
	}
}

// checkRequest validates a new clarification against the workflow scope
// and returns the record's target as it is stored: a person's as
// "human:NAME" (people.go).
func checkRequest(op Op, env Env) (config.Scope, string, error) {
	var none config.Scope
	if err := validate.IssueNumber(op.Issue); err != nil {
		return none, "", err
	}
	if err := validate.Agent("--from", op.From); err != nil {
		return none, "", err
	}
	cfg := env.Config
	if cfg == nil {
		cfg = &config.Set{}
	}
	to, person, err := personTarget(op.To, cfg)
	if err != nil {
		return none, "", err
	}
	if !person {
		if err := validate.Agent("--to", op.To); err != nil {
			return none, "", err
		}
	}
	if err := validate.Topic(op.Topic); err != nil {
		return none, "", err
	}
	if err := validate.Body("question", op.Text); err != nil {
		return none, "", err
	}
	known := cfg.KnownAgents()
	for _, a := range []string{op.From, op.To} {
		if a == op.To && person {
			continue
		}
		if !known[a] {
			return none, "", errcode.New(errcode.InvalidInput, "unknown agent %q (known: %s)", a, strings.Join(sortedKeys(known), ", ")).
				WithHint(peopleHint(cfg, a == op.To))
		}
	}
	if op.From == op.To {
		return none, "", errcode.New(errcode.InvalidInput, "agent %q cannot clarify with itself", op.From)
	}
	scope, err := cfg.ResolveScope(op.Workflow, op.Step, op.From, op.Blocking)
	if err != nil {
		return none, "", err
	}
	if person {
		// Any agent may ask a person, as any may be escalated to one:
		// can_clarify names the agents a step may ask. The person's SLA,
		// not the step's agent SLA, says how long the question waits.
		name, _ := ledger.PersonTarget(to)
		scope.SLA = cfg.PersonSLA(name)
	} else if !scope.Allows(op.To) {
		allowed := "none"
		if len(scope.CanClarify) > 0 {
			allowed = strings.Join(scope.CanClarify, ", ")
		}
		return none, "", errcode.New(errcode.ScopeViolation, "agent '%s' cannot clarify with '%s' (workflow %s, step %s). Allowed: [%s]",
			op.From, op.To, scope.Workflow, scope.Step, allowed)
	}
	if op.Blocking && !scope.BlockingAllowed {
		return none, "", errcode.New(errcode.ScopeViolation, "step %s of workflow %s does not allow blocking clarifications", scope.Step, scope.Workflow).
			WithHint("pass --non-blocking")
	}
	return scope, to, nil
}

// request records a new clarification; op was checked (checkRequest gave
// scope) and sanitised.
func request(l *ledger.Ledger, op Op, env Env, scope config.Scope) (*Effects, error) {
	ts := clock.Format(env.Now)
	rec := ledger.Record{
		ID: l.NextID(), IssueNumber: op.Issue, From: op.From, To: op.To, Topic: op.Topic,
		Blocking: op.Blocking, Status: ledger.Pending, Round: 1, MaxRounds: scope.MaxRounds,
		Created: ts, StaleAfter: clock.Format(env.Now.Add(scope.SLA)),
		Thread: []ledger.Entry{ledger.Entry{Round: 1, From: op.From, Type: ledger.Question, Body: op.Text, Timestamp: ts}.Sealed()},
	}
	rec.SetExtra(slaKey, json.RawMessage(strconv.Itoa(int(scope.SLA/time.Minute))))
	rec.Seal()
	l.Clarifications = append(l.Clarifications, rec)
	eff := &Effects{Record: rec, Events: []string{events.ClarificationRequested}, Route: true}
	if op.Blocking {
		eff.Blocked = op.From
	}
	return eff, nil
}

func answer(rec *ledger.Record, op Op, now string) (*Effects, error) {
	if !rec.Status.Waiting() {
		return nil, badTransition(rec, "answer", "pending or stale")
	}
	by := op.By
	if by == "" {
		by = rec.To
	}
	rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: by, Type: ledger.Answer, Body: op.Text, Timestamp: now}.Sealed())
	rec.Status = ledger.Answered
	return &Effects{Record: *rec, Events: []string{events.ClarificationAnswered}, Release: true}, nil
}

func ask(rec *ledger.Record, op Op, env Env, now string) (*Effects, error) {
	if rec.Status != ledger.Answered {
		return nil, badTransition(rec, "ask a follow-up on", "answered")
	}
	by := op.By
	if by == "" {
		by = rec.From
	}
	if rec.Round+1 > rec.MaxRounds {
		reason := fmt.Sprintf("reached the round limit (%d of %d rounds used)", rec.Round, rec.MaxRounds)
		rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: ledger.HubName, Type: ledger.Escalation,
			Body: EscalationSummary(rec, reason, env.cli()), Timestamp: now}.Sealed())
		rec.Status = ledger.Escalated
		e := errcode.New(errcode.MaxRoundsExceeded, "%s reached max rounds (%d). Auto-escalated", rec.ID, rec.MaxRounds)
		e.Hint = fmt.Sprintf("a person decides: %s clarify %s %s --body \"<decision>\"", env.cli(), Resolve, rec.ID)
		return &Effects{Record: *rec, Events: []string{events.ClarificationEscalated}, Release: true, Escalated: true}, e
	}
	rec.Round++
	rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: by, Type: ledger.Question, Body: op.Text, Timestamp: now}.Sealed())
	rec.Status = ledger.Pending
	rec.StaleAfter = clock.Format(env.Now.Add(SLA(rec)))
	eff := &Effects{Record: *rec, Events: []string{events.ClarificationFollowup}, Route: true}
	if rec.Blocking {
		eff.Blocked = rec.From
	}
	return eff, nil
}

// closeRecord settles a record that is still open or escalated, as
// resolved or abandoned, with a resolution entry.
func closeRecord(rec *ledger.Record, op Op, now string) (*Effects, error) {
	switch rec.Status {
	case ledger.Pending, ledger.Answered, ledger.Stale, ledger.Escalated:
	default:
		return nil, badTransition(rec, string(op.Verb), "pending, answered, stale or escalated")
	}
	by := op.By
	if by == "" {
		by = rec.From
	}
	text := textOf(op)
	to := ledger.Resolved
	if op.Verb == Abandon {
		// The reference has no "abandonment" entry type; a resolution
		// entry with the reason keeps old readers working.
		text = "Abandoned: " + text
		to = ledger.Abandoned
	}
	rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: by, Type: ledger.Resolution, Body: text, Timestamp: now}.Sealed())
	rec.Status = to
	eff := &Effects{Release: true}
	if to == ledger.Resolved {
		rec.ResolvedAt = &now
		eff.Events = []string{events.ClarificationResolved}
	} else {
		eff.Events = []string{events.ClarificationAbandoned}
	}
	eff.Record = *rec
	return eff, nil
}

func escalate(rec *ledger.Record, op Op, env Env, now string) (*Effects, error) {
	if !rec.Status.Open() {
		return nil, badTransition(rec, "escalate", "pending, answered or stale")
	}
	by := op.By
	if by == "" {
		by = ledger.HubName
	}
	reason := op.Reason
	if reason == "" {
		reason = "escalated by " + by
	}
	body := EscalationSummary(rec, reason, env.cli())
	if op.Text != "" {
		body = op.Text + "\n\n" + body
	}
	rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: by, Type: ledger.Escalation, Body: body, Timestamp: now}.Sealed())
	rec.Status = ledger.Escalated
	return &Effects{Record: *rec, Events: []string{events.ClarificationEscalated}, Release: true, Escalated: true}, nil
}

// markStale handles a round's first timeout (see MarkStale).
func markStale(rec *ledger.Record, env Env) (*Effects, error) {
	if Timeout(rec, env.Now) != 1 {
		return nil, ErrNotApplicable
	}
	wasPending := rec.Status == ledger.Pending
	rec.Status = ledger.Stale
	rec.StaleAfter = clock.Format(env.Now.Add(SLA(rec)))
	rec.SetExtra(staleRoundKey, json.RawMessage(strconv.Itoa(rec.Round)))
	eff := &Effects{Record: *rec}
	if wasPending {
		eff.Events = []string{events.ClarificationStale}
	}
	return eff, nil
}

// monitorEscalate hands a record the monitor found to a person, if it
// still qualifies as it is now.
func monitorEscalate(rec *ledger.Record, op Op, env Env, now string) (*Effects, error) {
	var why string
	qualifies := rec.Status.Open()
	switch op.Verb {
	case EscalateStale:
		why = ReasonStale
		qualifies = qualifies && Timeout(rec, env.Now) == 2
	case EscalateStuck:
		why = ReasonStuck
		if !op.Flipped {
			_, _, repeats := Repeats(rec)
			qualifies = qualifies && repeats
		}
	case EscalateDeadlock:
		why = ReasonDeadlock
		qualifies = qualifies && rec.Blocking && rec.Status.Waiting()
	}
	if !qualifies {
		return nil, ErrNotApplicable
	}
	body := EscalationSummary(rec, op.Reason, env.cli())
	if op.Detail != "" {
		body += "\n" + op.Detail
	}
	rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: ledger.HubName, Type: ledger.Escalation, Body: body, Timestamp: now}.Sealed())
	rec.Status = ledger.Escalated
	raw, _ := json.Marshal(why)
	rec.SetExtra(reasonKey, raw)
	return &Effects{Record: *rec, Events: []string{events.ClarificationEscalated}, Release: true, Escalated: true}, nil
}

// NotFound is the error for an id the ledger does not hold; its hint is
// the command that lists the id's issue, runnable as printed.
func NotFound(id string) error {
	return errcode.New(errcode.NotFound, "Clarification %s not found in ledger", id).
		WithHint(ListHint(id))
}

// ListHint is the hint of an id no ledger holds: list the clarifications of
// its issue (all open ones when the id names none).
func ListHint(id string) string {
	if issue, err := validate.ClarificationID(id); err == nil {
		return fmt.Sprintf("list issue %d's clarifications with `agentx-hook clarify --issue %d`", issue, issue)
	}
	return "list the open clarifications with `agentx-hook clarify`"
}

func badTransition(rec *ledger.Record, verb, want string) error {
	return errcode.New(errcode.InvalidInput, "cannot %s %s: its status is %s (must be %s)", verb, rec.ID, rec.Status, want)
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
