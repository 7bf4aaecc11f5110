package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// A blocking clarify_request to a person (issue 34) asks them in the
// client's own UI when the client supports MCP elicitation
// (`elicitation/create`, a form with one answer field): the person at the
// client is who the agent works for. Their answer is recorded in the
// ledger as that person's (`--as human:NAME`, audited), exactly as `clarify
// answer` would. A client without elicitation, a declined or cancelled
// form, a non-blocking request or waitSeconds 0 return the id at once: the
// person answers later (`clarify inbox --human`, a /clarify comment) and
// the agent waits on the id (clarify_show, clarify_inbox). The form stays
// open at most the person's SLA.

// personAnswerField is the form's one field.
const personAnswerField = "answer"

// supportsElicitation reports whether the client declared elicitation.
func supportsElicitation(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	p := req.Session.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// multiRoundTripVersion is the protocol version from which a server may
// not send elicitation/create while serving a call: it returns the form
// as an input request (an input_required result, SEP-2322) and the client
// calls again with the person's response.
const multiRoundTripVersion = "2026-07-28"

func multiRoundTrip(req *mcp.CallToolRequest) bool {
	p := req.Session.InitializeParams()
	return p != nil && p.ProtocolVersion >= multiRoundTripVersion
}

// askPerson asks the record's person in the client's UI, or returns the
// id to wait on.
func (s *server) askPerson(ctx context.Context, req *mcp.CallToolRequest, rec *ledger.Record, blocking bool, wait time.Duration) (*RequestResult, error) {
	out := &RequestResult{ClarifyResult: *result(&router.Result{Record: *rec})}
	out.Next = personNext(rec)
	if !blocking || wait <= 0 || !supportsElicitation(req) {
		return out, nil
	}
	form := personForm(rec)
	if multiRoundTrip(req) {
		// The record's id is the state the client hands back with the
		// answer: the call that comes back records it (personRetry).
		out.input = &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{personAnswerField: form}, RequestState: rec.ID}
		return out, nil
	}
	// The form stays open at most the person's SLA.
	ectx, cancel := context.WithTimeout(ctx, protocol.SLA(rec))
	defer cancel()
	res, err := req.Session.Elicit(ectx, form)
	if err != nil {
		out.Elicitation = "failed"
		out.Next = "the client could not ask the person (" + err.Error() + "); " + out.Next
		return out, nil
	}
	return s.personAnswer(ctx, rec, res, out)
}

// personRetry is the call a multi round-trip client makes again with the
// person's response to the form; its state names the request.
func (s *server) personRetry(ctx context.Context, req *mcp.CallToolRequest) (*RequestResult, error) {
	id := req.Params.RequestState
	rec, err := s.o.Router.Get(id)
	if err != nil {
		return nil, err
	}
	if _, person := ledger.PersonTarget(rec.To); !person || rec.From != s.o.Agent {
		return nil, errcode.New(errcode.InvalidInput, "requestState %q names no question of %s to a person", id, s.o.Agent)
	}
	out := &RequestResult{ClarifyResult: *result(&router.Result{Record: *rec})}
	out.Next = personNext(rec)
	res, _ := req.Params.InputResponses[personAnswerField].(*mcp.ElicitResult)
	switch {
	case res == nil:
		out.Elicitation = "failed"
		out.Next = "the client sent no response to the form; " + out.Next
		return out, nil
	case !rec.Status.Waiting():
		// The same response sent again: the answer stands as recorded.
		out.Elicitation = res.Action
		if a := rec.LastOf(ledger.Answer); a != nil {
			out.Answer, out.AnsweredBy = sanitize.Neutralize(a.Body), a.From
		}
		return out, nil
	}
	return s.personAnswer(ctx, rec, res, out)
}

// personForm is the form that asks the person: the question, who asks,
// and one answer field.
func personForm(rec *ledger.Record) *mcp.ElicitParams {
	q := ""
	if e := rec.LastOf(ledger.Question); e != nil {
		q = e.Body
	}
	msg := fmt.Sprintf("%s asks %s (%s, %s); your answer is recorded in the clarification ledger as yours:\n\n%s",
		rec.From, personLabel(rec.To), rec.ID, shorten.Line(sanitize.Neutralize(rec.Topic), 200), sanitize.Neutralize(q))
	return &mcp.ElicitParams{Message: msg, RequestedSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{personAnswerField: map[string]any{"type": "string", "title": "Your answer",
			"minLength": 1, "maxLength": validate.MaxBody}},
		"required": []string{personAnswerField},
	}}
}

// personAnswer records the person's response to the form: an accepted
// answer as theirs (--as human:NAME, audited), anything else leaves the
// question open.
func (s *server) personAnswer(ctx context.Context, rec *ledger.Record, res *mcp.ElicitResult, out *RequestResult) (*RequestResult, error) {
	out.Elicitation = res.Action
	answer, _ := res.Content[personAnswerField].(string)
	if res.Action != "accept" || strings.TrimSpace(answer) == "" {
		out.Next = "the person did not answer in the client (" + res.Action + "); " + out.Next
		return out, nil
	}
	by := "" // anyone's question: the client's person answers as its target
	if name, _ := ledger.PersonTarget(rec.To); name != "" {
		by = protocol.PersonPrefix + name
	}
	done, err := s.o.Router.Do(context.WithoutCancel(ctx), protocol.Op{Verb: protocol.Answer, Issue: rec.IssueNumber, InIssue: true,
		ID: rec.ID, By: by, Text: answer})
	if err != nil {
		return nil, landed(&router.Result{Record: *rec}, err)
	}
	out.ClarifyResult = *result(done)
	if a := done.Record.LastOf(ledger.Answer); a != nil {
		out.Answer, out.AnsweredBy = sanitize.Neutralize(a.Body), a.From
		// The result hands the answer to the agent: no hook delivers it again.
		s.receipt(ctx, &done.Record)
	}
	return out, nil
}

// personLabel names a person target for the form: "lead" or "a person".
func personLabel(to string) string {
	if name, _ := ledger.PersonTarget(to); name != "" {
		return name
	}
	return "a person"
}

// personNext is what the agent does while a person has not answered.
func personNext(rec *ledger.Record) string {
	as := rec.To
	if name, _ := ledger.PersonTarget(rec.To); name == "" {
		as = protocol.PersonPrefix + "NAME"
	}
	return fmt.Sprintf("waiting for %s (a person): they answer with `agentx-hook clarify answer %s --as %s` or a /clarify comment; call clarify_show with id %s later",
		personLabel(rec.To), rec.ID, as, rec.ID)
}
