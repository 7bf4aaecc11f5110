package mcpserver

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// peopleWorkspace is a workspace whose agentx.toml names the person lead.
func peopleWorkspace(t *testing.T) workspace.Workspace {
	t.Helper()
	ws := newWorkspace(t)
	f, err := os.OpenFile(ws.ConfigFile(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n[people]\nlead = { github = \"@octo-lead\", sla = \"2h\" }\n"); err != nil {
		t.Fatal(err)
	}
	return ws
}

// Issue 34: a blocking clarify_request to a person, from a client that
// supports elicitation, asks them in the client's UI; the answer is
// recorded as that person's.
func TestRequestToPersonElicits(t *testing.T) {
	t.Parallel()
	ws := peopleWorkspace(t)
	var asked *mcp.ElicitParams
	cs := connect(t, ws, "engineer", &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = req.Params
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "Redis, 5 minutes."}}, nil
	}})
	out := ok(t, cs, "clarify_request", map[string]any{"to": "lead", "topic": "cache", "question": "Which cache?"})
	if out["status"] != "answered" || out["answer"] != "Redis, 5 minutes." || out["answeredBy"] != "lead" || out["asked"] != "accept" {
		t.Fatalf("result = %v", out)
	}
	if asked == nil || !strings.Contains(asked.Message, "engineer asks lead (CLR-42-001, cache)") || !strings.Contains(asked.Message, "Which cache?") {
		t.Fatalf("the form asked %+v", asked)
	}
	l, err := (&ledger.Store{WS: ws}).Load(42)
	if err != nil {
		t.Fatal(err)
	}
	rec := l.Find("CLR-42-001")
	if a := rec.LastOf(ledger.Answer); rec.To != "human:lead" || a == nil || a.From != "lead" {
		t.Fatalf("record = %+v", rec)
	}
	audit, _ := os.ReadFile(ws.StateDir() + "/audit.jsonl")
	if !strings.Contains(string(audit), `"actor":"human:lead"`) {
		t.Fatalf("the audit trail does not name the person:\n%s", audit)
	}
}

// A declined form, a client without elicitation and a non-blocking
// request return the id to wait on, the question still open.
func TestRequestToPersonReturnsTheID(t *testing.T) {
	t.Parallel()
	ws := peopleWorkspace(t)
	declines := connect(t, ws, "engineer", &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}})
	out := ok(t, declines, "clarify_request", map[string]any{"to": "human:lead", "topic": "t", "question": "q?"})
	if out["status"] != "pending" || out["asked"] != "decline" || !strings.Contains(out["next"].(string), "clarify answer CLR-42-001 --as human:lead") {
		t.Fatalf("declined: %v", out)
	}
	plain := connect(t, ws, "engineer", nil)
	out = ok(t, plain, "clarify_request", map[string]any{"to": "human", "topic": "t2", "question": "q2?"})
	if out["status"] != "pending" || out["asked"] != nil || out["timedOut"] != nil || !strings.Contains(out["next"].(string), "--as human:NAME") {
		t.Fatalf("no elicitation: %v", out)
	}
	asked := false
	nb := connect(t, ws, "engineer", &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = true
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}})
	out = ok(t, nb, "clarify_request", map[string]any{"to": "lead", "topic": "t3", "question": "q3?", "blocking": false})
	if out["status"] != "pending" || asked {
		t.Fatalf("non-blocking: %v (asked %v)", out, asked)
	}
}
