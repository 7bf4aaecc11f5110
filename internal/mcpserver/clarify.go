package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memanchor"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/verify"
)

// Entry is one message of a clarification's thread. Integrity is
// "intact", "unhashed" (written by the old tools) or "tampered" (changed
// since it was written: do not trust it).
type Entry struct {
	Round     int    `json:"round"`
	From      string `json:"from"`
	Type      string `json:"type"`
	Body      string `json:"body"`
	Timestamp string `json:"timestamp"`
	Integrity string `json:"integrity"`
	// Delivered is the receipt of an answer delivered into a session of
	// the requester (issue 34).
	Delivered *ledger.Receipt `json:"delivered,omitempty"`
}

// Clarification is one record as the tools show it.
type Clarification struct {
	ID             string  `json:"id"`
	Issue          int     `json:"issue"`
	From           string  `json:"from"`
	To             string  `json:"to"`
	Topic          string  `json:"topic"`
	Blocking       bool    `json:"blocking"`
	Status         string  `json:"status"`
	Round          int     `json:"round"`
	MaxRounds      int     `json:"maxRounds"`
	Created        string  `json:"created"`
	LatestQuestion *Entry  `json:"latestQuestion,omitempty"`
	LatestAnswer   *Entry  `json:"latestAnswer,omitempty"`
	Thread         []Entry `json:"thread,omitempty" jsonschema:"the whole thread (clarify_show)"`
	// Tampered counts the thread entries changed since written.
	Tampered int `json:"tampered,omitempty" jsonschema:"thread entries changed since they were written"`
	// Undelivered counts answers, resolutions and escalations not yet
	// delivered into a session of the requester.
	Undelivered int `json:"undelivered,omitempty"`
	// Untrusted says why verify's checks find the record rewritten past
	// agentx (issue 32): do not act on it.
	Untrusted string `json:"untrusted,omitempty"`
}

// markViews marks the views of recs that verify's checks find rewritten
// (verify.MarkRecords: the rule verify applies, on these ledgers only).
func (s *server) markViews(ctx context.Context, recs []ledger.Record, views ...*Clarification) {
	x := memanchor.For(s.o.WS)
	x.Write = true // the clarify tools write anyway (the monitor runs)
	marks := verify.MarkRecords(ctx, x, s.o.WS, recs)
	for _, v := range views {
		if v != nil {
			v.Untrusted = marks[v.ID]
		}
	}
}

func entryOf(e *ledger.Entry) *Entry {
	if e == nil {
		return nil
	}
	out := &Entry{Round: e.Round, From: e.From, Type: string(e.Type), Body: sanitize.Neutralize(e.Body), Timestamp: e.Timestamp, Integrity: e.Integrity().String()}
	if r, ok := e.Receipt(); ok {
		out.Delivered = &r
	}
	return out
}

// view is rec for a tool's result, with its whole thread when full.
func view(rec *ledger.Record, full bool) *Clarification {
	c := &Clarification{ID: rec.ID, Issue: rec.IssueNumber, From: rec.From, To: rec.To, Topic: sanitize.Neutralize(rec.Topic), Blocking: rec.Blocking,
		Status: string(rec.Status), Round: rec.Round, MaxRounds: rec.MaxRounds, Created: rec.Created,
		LatestQuestion: entryOf(rec.LastOf(ledger.Question)), LatestAnswer: entryOf(rec.LastOf(ledger.Answer)),
		Tampered: len(rec.TamperedEntries()), Undelivered: len(rec.Undelivered())}
	if full {
		c.Thread = make([]Entry, 0, len(rec.Thread))
		for i := range rec.Thread {
			c.Thread = append(c.Thread, *entryOf(&rec.Thread[i]))
		}
	}
	return c
}

// ClarifyResult is what a clarify verb did.
type ClarifyResult struct {
	Outcome
	ID     string `json:"id,omitempty"`
	Status string `json:"status,omitempty"`
	// Answer is the target's answer when it came during the call (a
	// responder, or a blocking request's wait).
	Answer        string         `json:"answer,omitempty"`
	AnsweredBy    string         `json:"answeredBy,omitempty"`
	Escalated     bool           `json:"escalated,omitempty"`
	Next          string         `json:"next,omitempty"`
	Clarification *Clarification `json:"clarification,omitempty"`
}

// RequestResult is what clarify_request did, and how its wait ended.
type RequestResult struct {
	ClarifyResult
	// TimedOut: a blocking request's wait ended before an answer came
	// (check later with clarify_show or clarify_inbox).
	TimedOut bool `json:"timedOut,omitempty"`
	// Abandoned: the wait ended because the client went away or
	// cancelled the call (the request stays open).
	Abandoned bool `json:"abandoned,omitempty"`
	// Elicitation is what the person did with the question asked in the
	// client's UI (accept, decline, cancel, failed; people.go).
	Elicitation string `json:"asked,omitempty"`
	// input, when set, is the form a multi round-trip client fills in
	// before calling again (people.go).
	input *mcp.CallToolResult
}

// inputRequired is the input_required result the call returns instead.
func (r *RequestResult) inputRequired() *mcp.CallToolResult { return r.input }

type requestIn struct {
	Issue       *int   `json:"issue,omitempty" jsonschema:"default: the session's issue"`
	To          string `json:"to" jsonschema:"agent, or human[:NAME]"`
	Topic       string `json:"topic" jsonschema:"a short subject"`
	Question    string `json:"question"`
	Blocking    *bool  `json:"blocking,omitempty" jsonschema:"default true: wait for the answer"`
	WaitSeconds *int   `json:"waitSeconds,omitempty" jsonschema:"default 60; 0 returns at once"`
	From        string `json:"from,omitempty" jsonschema:"leave out"`
	Workflow    string `json:"workflow,omitempty" jsonschema:"default: default_workflow"`
	Step        string `json:"step,omitempty" jsonschema:"default: the requester's step"`
}

type opIn struct {
	ID    string `json:"id" jsonschema:"e.g. CLR-42-001"`
	Issue *int   `json:"issue,omitempty"` // legacy ids only (CLR-NNN)
	As    string `json:"as,omitempty"`    // this server's agent or nothing
}

type answerIn struct {
	opIn
	Body string `json:"body"`
}

type resolveIn struct {
	opIn
	Body string `json:"body,omitempty" jsonschema:"what you decided"`
}

type askIn struct {
	opIn
	Body string `json:"body"`
}

type abandonIn struct {
	opIn
	Reason string `json:"reason,omitempty"`
}

type escalateIn struct {
	opIn
	Summary string `json:"summary,omitempty"`
}

type showIn struct {
	ID    string `json:"id" jsonschema:"e.g. CLR-42-001"`
	Issue *int   `json:"issue,omitempty"` // legacy ids only (CLR-NNN)
}

// ShowResult is one clarification with its whole thread.
type ShowResult struct {
	Outcome
	Clarification *Clarification `json:"clarification,omitempty"`
}

type inboxIn struct{}

// InboxResult is what waits for this agent.
type InboxResult struct {
	Outcome
	Agent string `json:"agent"`
	// Waiting are the questions this agent owes an answer to, blocking first.
	Waiting []*Clarification `json:"waiting" jsonschema:"questions waiting for your answer (answer with clarify_answer)"`
	// Requests are this agent's own open requests with their latest answers.
	Requests []*Clarification `json:"requests" jsonschema:"your own open requests with their latest answers"`
	// Escalations are the records of the session's issue that wait for a
	// person, as hook start lists them.
	Escalations []*Clarification `json:"escalations" jsonschema:"clarifications of your issue escalated to a person"`
	// Warnings name the ledgers that could not be read (left untouched):
	// what they hold is missing above, so an empty inbox is not "nothing
	// waits".
	Warnings []string `json:"warnings,omitempty" jsonschema:"unreadable ledgers, left out"`
}

func (s *server) addClarifyTools(srv *mcp.Server) {
	op := map[string]bound{"id": idBound, "issue": issueBound, "as": actorBound}
	with := func(name string, b bound) map[string]bound {
		m := map[string]bound{name: b}
		for k, v := range op {
			m[k] = v
		}
		return m
	}
	add(srv, spec{name: "clarify_request", title: "Ask another agent",
		desc:      "Ask an agent or person; blocking waits for the answer, else returns the id.",
		openWorld: true,
		in: map[string]bound{"issue": issueBound, "to": chars(1, validate.MaxAgent+len(protocol.PersonPrefix)), "topic": chars(1, validate.MaxTopic), "question": bodyBound,
			"waitSeconds": between(0, int(MaxWait/time.Second)), "from": actorBound, "workflow": chars(0, 100), "step": chars(0, 100)}},
		s.request)
	add(srv, spec{name: "clarify_answer", title: "Answer a clarification",
		desc: "Answer a question that waits for you (clarify_inbox).", in: with("body", bodyBound)}, s.answer)
	add(srv, spec{name: "clarify_ask", title: "Ask a follow-up",
		desc: "Ask a follow-up on your answered clarification (the next round).", openWorld: true,
		in: with("body", bodyBound)}, s.ask)
	add(srv, spec{name: "clarify_resolve", title: "Resolve a clarification",
		desc: "Close your answered clarification, saying what you decided.", idempotent: true, in: with("body", optBody)}, s.resolve)
	add(srv, spec{name: "clarify_abandon", title: "Withdraw a clarification",
		desc: "Withdraw your clarification: the question no longer matters.", destructive: true, idempotent: true,
		in: with("reason", optBody)}, s.abandon)
	add(srv, spec{name: "clarify_escalate", title: "Escalate to a person",
		desc: "Hand a clarification to a person.", idempotent: true, in: with("summary", optBody)}, s.escalate)
	add(srv, spec{name: "clarify_inbox", title: "Clarification inbox", readOnly: true,
		desc: "Questions you owe, your open requests and their answers, escalations."}, s.inbox)
	add(srv, spec{name: "clarify_show", title: "Show a clarification", readOnly: true,
		desc: "One clarification and its thread (tampered entries marked).",
		in:   map[string]bound{"id": idBound, "issue": issueBound}}, s.show)
}

// result is what an operation did, as a tool result.
func result(res *router.Result) *ClarifyResult {
	rec := &res.Record
	out := &ClarifyResult{ID: rec.ID, Status: string(rec.Status), Answer: sanitize.Neutralize(res.Answer), Escalated: res.Escalated, Clarification: view(rec, false)}
	if res.Answer != "" {
		out.AnsweredBy = rec.To
	}
	switch {
	case rec.Status == ledger.Answered:
		out.Next = "read the answer, then clarify_resolve " + rec.ID + " with what you decided"
	case rec.Status.Waiting():
		out.Next = "waiting for " + rec.To + ": clarify_show " + rec.ID + " or clarify_inbox later"
	}
	return out
}

// landed is err, naming the record when the operation landed anyway (a
// responder failed after the request was written).
func landed(res *router.Result, err error) error {
	if res == nil || res.Record.ID == "" {
		return err
	}
	code, hint := errcode.Classify(err)
	return &errcode.Error{Code: code, Hint: hint, Err: err,
		Message: fmt.Sprintf("%v (%s was recorded, status %s)", err, res.Record.ID, res.Record.Status)}
}

// do applies one verb to a record as this server's agent.
func (s *server) do(ctx context.Context, verb protocol.Verb, in opIn, text string) (*ClarifyResult, error) {
	if err := s.actor("as", in.As); err != nil {
		return nil, err
	}
	op := protocol.Op{Verb: verb, ID: in.ID, By: s.o.Agent, Text: text}
	if in.Issue != nil {
		op.Issue, op.InIssue = *in.Issue, true
	}
	res, err := s.o.Router.Do(ctx, op)
	defer s.monitorCheck(ctx)
	if err != nil {
		return nil, landed(res, err)
	}
	out := result(res)
	// The record acted on may have been rewritten before (issue 32).
	s.markViews(ctx, []ledger.Record{res.Record}, out.Clarification)
	return out, nil
}

func (s *server) answer(ctx context.Context, _ *mcp.CallToolRequest, in answerIn) (*ClarifyResult, error) {
	return s.do(ctx, protocol.Answer, in.opIn, in.Body)
}

func (s *server) resolve(ctx context.Context, _ *mcp.CallToolRequest, in resolveIn) (*ClarifyResult, error) {
	return s.do(ctx, protocol.Resolve, in.opIn, in.Body)
}

func (s *server) ask(ctx context.Context, _ *mcp.CallToolRequest, in askIn) (*ClarifyResult, error) {
	return s.do(ctx, protocol.Ask, in.opIn, in.Body)
}

func (s *server) abandon(ctx context.Context, _ *mcp.CallToolRequest, in abandonIn) (*ClarifyResult, error) {
	return s.do(ctx, protocol.Abandon, in.opIn, in.Reason)
}

func (s *server) escalate(ctx context.Context, _ *mcp.CallToolRequest, in escalateIn) (*ClarifyResult, error) {
	return s.do(ctx, protocol.Escalate, in.opIn, in.Summary)
}

func (s *server) show(ctx context.Context, _ *mcp.CallToolRequest, in showIn) (*ShowResult, error) {
	s.monitorCheck(ctx)
	if in.Issue == nil {
		rec, err := s.o.Router.Get(in.ID)
		if err != nil {
			return nil, err
		}
		out := &ShowResult{Clarification: view(rec, true)}
		s.markViews(ctx, []ledger.Record{*rec}, out.Clarification)
		return out, nil
	}
	l, err := s.o.Router.Ledgers.Load(*in.Issue)
	if err != nil {
		return nil, err
	}
	for i := range l.Clarifications {
		if l.Clarifications[i].ID == in.ID {
			out := &ShowResult{Clarification: view(&l.Clarifications[i], true)}
			s.markViews(ctx, l.Clarifications[i:i+1], out.Clarification)
			return out, nil
		}
	}
	return nil, protocol.NotFound(in.ID)
}

func (s *server) inbox(ctx context.Context, _ *mcp.CallToolRequest, _ inboxIn) (*InboxResult, error) {
	mon := monitor.New(s.o.Router)
	rep, err := mon.Check(ctx)
	if err != nil {
		return nil, err
	}
	waiting, requests := ledger.Inbox(mon.OpenNow(rep), s.o.Agent)
	out := &InboxResult{Agent: s.o.Agent, Waiting: []*Clarification{}, Requests: []*Clarification{}}
	for _, w := range rep.Warnings {
		s.o.Warn("monitor: %v", w)
		out.Warnings = append(out.Warnings, w.Error())
	}
	for i := range waiting {
		if waiting[i].Blocking {
			out.Waiting = append(out.Waiting, view(&waiting[i], false))
		}
	}
	for i := range waiting {
		if !waiting[i].Blocking {
			out.Waiting = append(out.Waiting, view(&waiting[i], false))
		}
	}
	for i := range requests {
		out.Requests = append(out.Requests, view(&requests[i], false))
	}
	out.Escalations = s.escalations(ctx)
	s.markViews(ctx, append(waiting, requests...), append(out.Waiting, out.Requests...)...)
	return out, nil
}

// escalations are the escalated records that concern this server: the
// session's issue's, as hook start lists them, and wherever this agent
// asked or was asked, so its own escalations stay in its inbox with no
// default issue. Ledgers that do not load are left out: the rest of the
// inbox stands.
func (s *server) escalations(ctx context.Context) []*Clarification {
	out := []*Clarification{}
	issue, hasIssue := 0, false
	if s.o.Issue != nil {
		issue, hasIssue = s.o.Issue(ctx)
	}
	recs, _, err := (&ledger.Store{WS: s.o.WS, Locks: s.o.Router.Locks}).Records(func(r *ledger.Record) bool {
		return r.Status == ledger.Escalated && ((hasIssue && r.IssueNumber == issue) || r.From == s.o.Agent || r.To == s.o.Agent)
	})
	if err != nil {
		return out
	}
	for i := range recs {
		out = append(out, view(&recs[i], false))
	}
	s.markViews(ctx, recs, out...)
	return out
}
