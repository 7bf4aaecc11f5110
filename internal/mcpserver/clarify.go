package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
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
}

func entryOf(e *ledger.Entry) *Entry {
	if e == nil {
		return nil
	}
	return &Entry{Round: e.Round, From: e.From, Type: string(e.Type), Body: sanitize.Neutralize(e.Body), Timestamp: e.Timestamp, Integrity: e.Integrity().String()}
}

// view is rec for a tool's result, with its whole thread when full.
func view(rec *ledger.Record, full bool) *Clarification {
	c := &Clarification{ID: rec.ID, Issue: rec.IssueNumber, From: rec.From, To: rec.To, Topic: sanitize.Neutralize(rec.Topic), Blocking: rec.Blocking,
		Status: string(rec.Status), Round: rec.Round, MaxRounds: rec.MaxRounds, Created: rec.Created,
		LatestQuestion: entryOf(rec.LastOf(ledger.Question)), LatestAnswer: entryOf(rec.LastOf(ledger.Answer)),
		Tampered: len(rec.TamperedEntries())}
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
	Answer     string `json:"answer,omitempty"`
	AnsweredBy string `json:"answeredBy,omitempty"`
	Escalated  bool   `json:"escalated,omitempty"`
	// TimedOut: a blocking request's wait ended before an answer came.
	TimedOut      bool           `json:"timedOut,omitempty" jsonschema:"the wait ended before an answer: check later with clarify_show or clarify_inbox"`
	Next          string         `json:"next,omitempty" jsonschema:"what to do next"`
	Clarification *Clarification `json:"clarification,omitempty"`
}

type requestIn struct {
	Issue       *int   `json:"issue,omitempty" jsonschema:"the issue number (default: $AGENTX_ISSUE, else the branch's issue)"`
	To          string `json:"to" jsonschema:"the agent asked, e.g. architect or product-manager"`
	Topic       string `json:"topic" jsonschema:"a short subject, 1-200 characters"`
	Question    string `json:"question" jsonschema:"the question, 1-2000 characters"`
	Blocking    *bool  `json:"blocking,omitempty" jsonschema:"you cannot go on without the answer (default true); the call then waits for it up to wait_seconds"`
	WaitSeconds *int   `json:"waitSeconds,omitempty" jsonschema:"how long a blocking request waits for its answer (default 60, at most 600, 0 returns at once)"`
	From        string `json:"from,omitempty" jsonschema:"the requesting agent; only this server's own agent is accepted"`
	Workflow    string `json:"workflow,omitempty" jsonschema:"workflow name (default: default_workflow in agentx.toml)"`
	Step        string `json:"step,omitempty" jsonschema:"workflow step id (default: the requester's step)"`
}

type opIn struct {
	ID    string `json:"id" jsonschema:"the clarification id, CLR-<issue>-<NNN>"`
	Issue *int   `json:"issue,omitempty" jsonschema:"the issue whose ledger holds id (only for ids not shaped CLR-N-NNN)"`
	As    string `json:"as,omitempty" jsonschema:"who acts; only this server's own agent is accepted"`
}

type answerIn struct {
	opIn
	Body string `json:"body" jsonschema:"the answer, 1-2000 characters"`
}

type resolveIn struct {
	opIn
	Body string `json:"body,omitempty" jsonschema:"the resolution: what you decided (default \"Resolved.\")"`
}

type askIn struct {
	opIn
	Body string `json:"body" jsonschema:"the follow-up question for the next round, 1-2000 characters"`
}

type abandonIn struct {
	opIn
	Reason string `json:"reason,omitempty" jsonschema:"why the question no longer matters (default \"Abandoned.\")"`
}

type escalateIn struct {
	opIn
	Summary string `json:"summary,omitempty" jsonschema:"why it needs a person"`
}

type showIn struct {
	ID    string `json:"id" jsonschema:"the clarification id, CLR-<issue>-<NNN>"`
	Issue *int   `json:"issue,omitempty" jsonschema:"the issue whose ledger holds id (only for ids not shaped CLR-N-NNN)"`
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
}

func (s *server) addClarifyTools(srv *mcp.Server) {
	add(srv, "clarify_request", "Ask another agent a question about an issue; a blocking request waits for the answer (with progress) up to waitSeconds, else returns the id to check later.", s.request)
	add(srv, "clarify_answer", "Answer a clarification that waits for you (see clarify_inbox).", s.answer)
	add(srv, "clarify_ask", "Ask a follow-up on your answered clarification: the next round, within its round limit.", s.ask)
	add(srv, "clarify_resolve", "Close your clarification once answered, saying what you decided.", s.resolve)
	add(srv, "clarify_abandon", "Withdraw your clarification when the question no longer matters.", s.abandon)
	add(srv, "clarify_escalate", "Hand a clarification to a person when agents cannot settle it.", s.escalate)
	add(srv, "clarify_inbox", "What waits for you: questions you owe an answer to, and your own open requests with their latest answers.", s.inbox)
	add(srv, "clarify_show", "One clarification with its whole thread; entries changed since written are marked tampered.", s.show)
}

func (s *server) request(ctx context.Context, req *mcp.CallToolRequest, in requestIn) (*ClarifyResult, error) {
	if err := s.actor("from", in.From); err != nil {
		return nil, err
	}
	issue, err := s.issue(ctx, in.Issue)
	if err != nil {
		return nil, err
	}
	if err := s.o.Config.RequireAgents(s.o.WS.Root); err != nil {
		return nil, err
	}
	blocking := in.Blocking == nil || *in.Blocking
	wait := s.o.Wait
	if in.WaitSeconds != nil {
		wait = min(time.Duration(max(*in.WaitSeconds, 0))*time.Second, MaxWait)
	}
	res, err := s.o.Router.Request(ctx, router.RequestInput{Issue: issue, From: s.o.Agent, To: in.To, Topic: in.Topic,
		Question: in.Question, Blocking: blocking, Workflow: in.Workflow, Step: in.Step})
	defer s.monitorCheck(ctx)
	if err != nil {
		return nil, landed(res, err)
	}
	out := result(res)
	if !blocking || wait <= 0 || !res.Record.Status.Waiting() {
		return out, nil
	}
	return s.wait(ctx, req, res.Record.ID, wait)
}

// wait reads the record until its target answered (or someone closed or
// escalated it) or limit passed, telling the client every few seconds.
func (s *server) wait(ctx context.Context, req *mcp.CallToolRequest, id string, limit time.Duration) (*ClarifyResult, error) {
	start := time.Now()
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	token := req.Params.GetProgressToken()
	lastNote := time.Time{}
	for {
		rec, err := s.o.Router.Get(id)
		if err != nil {
			return nil, err
		}
		waited := time.Since(start)
		if !rec.Status.Waiting() || waited >= limit || ctx.Err() != nil {
			out := result(&router.Result{Record: *rec})
			if a := rec.LastOf(ledger.Answer); a != nil && !rec.Status.Waiting() {
				out.Answer, out.AnsweredBy = a.Body, a.From
			}
			if rec.Status.Waiting() {
				out.TimedOut = true
				out.Next = fmt.Sprintf("no answer from %s yet: call clarify_show with id %s (or clarify_inbox) later", rec.To, id)
			}
			return out, nil
		}
		if token != nil && time.Since(lastNote) >= 5*time.Second {
			lastNote = time.Now()
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
				Progress: waited.Seconds(), Total: limit.Seconds(),
				Message: fmt.Sprintf("%s waits for %s's answer (%ds of %ds)", id, rec.To, int(waited.Seconds()), int(limit.Seconds()))})
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
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
	return result(res), nil
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
		return &ShowResult{Clarification: view(rec, true)}, nil
	}
	l, err := s.o.Router.Ledgers.Load(*in.Issue)
	if err != nil {
		return nil, err
	}
	for i := range l.Clarifications {
		if l.Clarifications[i].ID == in.ID {
			return &ShowResult{Clarification: view(&l.Clarifications[i], true)}, nil
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
	return out, nil
}

// escalations are the escalated records of the session's issue (none
// without one, or when its ledger does not load: the rest of the inbox
// stands).
func (s *server) escalations(ctx context.Context) []*Clarification {
	out := []*Clarification{}
	if s.o.Issue == nil {
		return out
	}
	issue, ok := s.o.Issue(ctx)
	if !ok {
		return out
	}
	l, err := (&ledger.Store{WS: s.o.WS, Locks: s.o.Router.Locks}).Load(issue)
	if err != nil {
		return out
	}
	for i := range l.Clarifications {
		if l.Clarifications[i].Status == ledger.Escalated {
			out = append(out, view(&l.Clarifications[i], false))
		}
	}
	return out
}
