package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/delivery"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/router"
)

// clarify_request: the request (a person's target asked through the
// client), the wait for its answer up to wait_seconds with the client told
// every few seconds, the receipt once it is answered, and the log of a
// wait the client gave up.

func (s *server) request(ctx context.Context, req *mcp.CallToolRequest, in requestIn) (*RequestResult, error) {
	if err := s.actor("from", in.From); err != nil {
		return nil, err
	}
	if req != nil && req.Params != nil && req.Params.RequestState != "" {
		return s.personRetry(ctx, req) // the person's answer, asked for by the first call
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
	if _, person := ledger.PersonTarget(res.Record.To); person && res.Record.Status.Waiting() {
		return s.askPerson(ctx, req, &res.Record, blocking, wait)
	}
	out := &RequestResult{ClarifyResult: *result(res)}
	if !blocking || wait <= 0 || !res.Record.Status.Waiting() {
		return out, nil
	}
	return s.wait(ctx, req, res.Record.ID, wait)
}

// wait reads the record until its target answered (or someone closed or
// escalated it) or limit passed, telling the client every few seconds. A
// wait whose client went away (its input ended) or cancelled the call is
// abandoned at once and logged as such; the request stays open.
func (s *server) wait(ctx context.Context, req *mcp.CallToolRequest, id string, limit time.Duration) (*RequestResult, error) {
	start := time.Now()
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	token := req.Params.GetProgressToken()
	lastNote := time.Time{}
	abandoned := ""
	for {
		rec, err := s.o.Router.Get(id)
		if err != nil {
			return nil, err
		}
		waited := time.Since(start)
		if abandoned == "" {
			abandoned = s.abandonedWhy(ctx)
		}
		if !rec.Status.Waiting() || waited >= limit || abandoned != "" {
			out := &RequestResult{ClarifyResult: *result(&router.Result{Record: *rec})}
			if a := rec.LastOf(ledger.Answer); a != nil && !rec.Status.Waiting() {
				out.Answer, out.AnsweredBy = a.Body, a.From
				s.receipt(ctx, rec)
			}
			if rec.Status.Waiting() {
				out.TimedOut = abandoned == ""
				out.Abandoned = abandoned != ""
				out.Next = fmt.Sprintf("no answer from %s yet: call clarify_show with id %s (or clarify_inbox) later", rec.To, id)
				if abandoned != "" {
					out.Next = "the wait ended (" + abandoned + "); " + id + " stays open: " + out.Next
					s.logAbandoned(ctx, rec, abandoned, waited)
				}
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
		case <-s.o.Gone:
		case <-tick.C:
		}
	}
}

// receipt records that the answer the wait returns reached the agent
// (issue 34): the host's next mid-session hook must not deliver it again.
// The server does not know the host's session id; the receipt names this
// server's process.
func (s *server) receipt(ctx context.Context, rec *ledger.Record) {
	rt := s.o.Router
	d := &delivery.Deliverer{WS: rt.WS, Ledgers: rt.Ledgers, Clock: rt.Clock}
	req := delivery.Request{Agent: rec.From, Session: "mcp-" + strconv.Itoa(os.Getpid()), Host: "mcp"}
	if err := d.MarkShown(ctx, req, []ledger.Record{*rec}); err != nil {
		s.o.Warn("agentx mcp: delivery receipt of %s: %v", rec.ID, err)
	}
}

// abandonedWhy says why nobody waits for the answer any more: the
// client's input ended, or it cancelled the call; "" while it waits.
func (s *server) abandonedWhy(ctx context.Context) string {
	select {
	case <-s.o.Gone:
		return "the client closed its input"
	default:
	}
	if ctx.Err() == nil {
		return ""
	}
	if errors.Is(context.Cause(ctx), io.EOF) {
		return "the client closed its input"
	}
	return "the client cancelled the call"
}

// logAbandoned records in the event log that a wait ended unanswered.
// The call's context may be cancelled already: the line is written under
// a short context of its own, so it is whole or absent.
func (s *server) logAbandoned(ctx context.Context, rec *ledger.Record, why string, waited time.Duration) {
	ev := s.o.Router.Events
	if ev == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 500*time.Millisecond)
	defer cancel()
	err := ev.Append(ctx, events.ClarificationWaitAbandoned, events.WaitAbandonedPayload{
		ClarificationPayload: events.ClarificationPayload{ClarificationID: rec.ID, IssueNumber: rec.IssueNumber, FromAgent: rec.From,
			ToAgent: rec.To, Topic: rec.Topic, Blocking: rec.Blocking, Timestamp: time.Now().UnixMilli()},
		Reason: why, WaitedSeconds: int(waited.Seconds())})
	if err != nil {
		s.o.Warn("%s not logged: %v", events.ClarificationWaitAbandoned, err)
	}
}
