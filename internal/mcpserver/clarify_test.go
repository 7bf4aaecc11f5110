// The clarify tools over MCP: a request's round trip, refusals, escalation
// and ready, a follow-up round and withdrawal, the inbox, a blocking request
// that waits for its answer or times out, and a tampered entry shown marked.

package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestClarifyRoundTrip(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng, arch := connect(t, ws, "engineer", nil), connect(t, ws, "architect", nil)
	out := ok(t, eng, "clarify_request", map[string]any{"issue": 42, "to": "architect", "topic": "token storage",
		"question": "Where do refresh tokens live?", "blocking": false})
	if out["id"] != "CLR-42-001" || out["status"] != "pending" {
		t.Fatalf("request: %v", out)
	}
	inbox := ok(t, arch, "clarify_inbox", nil)
	waiting, _ := inbox["waiting"].([]any)
	if len(waiting) != 1 || waiting[0].(map[string]any)["id"] != "CLR-42-001" {
		t.Fatalf("architect's inbox: %v", inbox)
	}
	out = ok(t, arch, "clarify_answer", map[string]any{"id": "CLR-42-001", "body": "In an httpOnly cookie."})
	if out["status"] != "answered" {
		t.Fatalf("answer: %v", out)
	}
	inbox = ok(t, eng, "clarify_inbox", nil)
	reqs, _ := inbox["requests"].([]any)
	if len(reqs) != 1 {
		t.Fatalf("engineer's inbox: %v", inbox)
	}
	latest, _ := reqs[0].(map[string]any)["latestAnswer"].(map[string]any)
	if latest["body"] != "In an httpOnly cookie." || latest["integrity"] != "intact" {
		t.Fatalf("latest answer: %v", reqs[0])
	}
	show := ok(t, eng, "clarify_show", map[string]any{"id": "CLR-42-001"})
	thread, _ := show["clarification"].(map[string]any)["thread"].([]any)
	if len(thread) != 2 {
		t.Fatalf("thread: %v", show)
	}
	out = ok(t, eng, "clarify_resolve", map[string]any{"id": "CLR-42-001", "body": "Cookie it is."})
	if out["status"] != "resolved" {
		t.Fatalf("resolve: %v", out)
	}
	// The audit trail names the agents who acted.
	data, err := os.ReadFile(filepath.Join(ws.StateDir(), "audit.jsonl"))
	if err != nil || !strings.Contains(string(data), `"architect"`) || !strings.Contains(string(data), `"engineer"`) {
		t.Fatalf("audit trail: %v\n%s", err, data)
	}
}

func TestClarifyRefusals(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng, arch := connect(t, ws, "engineer", nil), connect(t, ws, "architect", nil)
	msg := refused(t, eng, "clarify_request", map[string]any{"issue": 42, "from": "architect", "to": "engineer", "topic": "t", "question": "q?"}, "SCOPE_VIOLATION")
	if !strings.Contains(msg, "hint: ") {
		t.Errorf("no hint: %q", msg)
	}
	refused(t, eng, "clarify_request", map[string]any{"issue": 42, "to": "nobody", "topic": "t", "question": "q?", "blocking": false}, "INVALID_INPUT")
	refused(t, eng, "clarify_request", map[string]any{"issue": 42, "to": "reviewer", "topic": "t", "question": "q?", "blocking": false}, "SCOPE_VIOLATION")
	refused(t, eng, "clarify_request", map[string]any{"issue": 42, "to": "architect", "topic": "", "question": "q?", "blocking": false}, "INVALID_INPUT")
	refused(t, arch, "clarify_answer", map[string]any{"id": "CLR-42-009", "body": "x"}, "NOT_FOUND")
	ok(t, eng, "clarify_request", map[string]any{"to": "architect", "topic": "cache", "question": "Which cache?", "blocking": false})
	refused(t, arch, "clarify_answer", map[string]any{"id": "CLR-42-001", "body": "Redis", "as": "engineer"}, "SCOPE_VIOLATION")
	refused(t, eng, "clarify_resolve", map[string]any{"id": "CLR-42-001", "as": "architect"}, "SCOPE_VIOLATION")
	refused(t, eng, "clarify_escalate", map[string]any{"id": "CLR-42-077"}, "NOT_FOUND")
	refused(t, eng, "clarify_show", map[string]any{"id": "CLR-42-077"}, "NOT_FOUND")
	refused(t, eng, "clarify_show", map[string]any{"id": "not an id"}, "INVALID_INPUT")
	// Arguments outside the schema are refused before any handler runs.
	refused(t, eng, "clarify_inbox", map[string]any{"agent": "architect"}, "")
	refused(t, eng, "clarify_answer", map[string]any{"id": "CLR-42-001"}, "")
}

func TestClarifyEscalateAndReady(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng := connect(t, ws, "engineer", nil)
	ok(t, eng, "clarify_request", map[string]any{"issue": 7, "to": "architect", "topic": "schema", "question": "Which schema?", "waitSeconds": 0})
	rd := ok(t, eng, "ready", nil)
	issues, _ := rd["issues"].([]any)
	if len(issues) != 1 || issues[0].(map[string]any)["waitingFor"] != "agent" {
		t.Fatalf("ready: %v", rd)
	}
	out := ok(t, eng, "clarify_escalate", map[string]any{"id": "CLR-7-001", "summary": "We disagree on the schema."})
	if out["status"] != "escalated" {
		t.Fatalf("escalate: %v", out)
	}
	rd = ok(t, eng, "ready", nil)
	issues, _ = rd["issues"].([]any)
	if len(issues) != 1 || issues[0].(map[string]any)["waitingFor"] != "person" {
		t.Fatalf("ready after escalation: %v", rd)
	}
	refused(t, eng, "clarify_escalate", map[string]any{"id": "CLR-7-001", "as": "reviewer"}, "SCOPE_VIOLATION")
}

// TestClarifyAskAndAbandon: a follow-up round on an answered request, and
// withdrawing one, as the CLI's clarify ask and clarify abandon do.
func TestClarifyAskAndAbandon(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng := connect(t, ws, "engineer", nil)
	arch := connect(t, ws, "architect", nil)
	ok(t, eng, "clarify_request", map[string]any{"issue": 8, "to": "architect", "topic": "cache", "question": "Redis or memcached?", "waitSeconds": 0})
	ok(t, arch, "clarify_answer", map[string]any{"id": "CLR-8-001", "body": "Redis."})
	out := ok(t, eng, "clarify_ask", map[string]any{"id": "CLR-8-001", "body": "Cluster or single node?"})
	if c, _ := out["clarification"].(map[string]any); out["status"] != "pending" || c["round"] != float64(2) {
		t.Fatalf("ask: %v", out)
	}
	refused(t, arch, "clarify_ask", map[string]any{"id": "CLR-8-001", "body": "?", "as": "engineer"}, "SCOPE_VIOLATION")
	out = ok(t, eng, "clarify_abandon", map[string]any{"id": "CLR-8-001", "reason": "We dropped the cache."})
	if out["status"] != "abandoned" {
		t.Fatalf("abandon: %v", out)
	}
	refused(t, eng, "clarify_ask", map[string]any{"id": "CLR-8-001", "body": "And now?"}, "INVALID_INPUT")
}

// TestInboxListsEscalationsOfTheIssue: what waits for a person on the
// session's issue (42 here) is in the inbox, as hook start lists it.
func TestInboxListsEscalationsOfTheIssue(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng := connect(t, ws, "engineer", nil)
	ok(t, eng, "clarify_request", map[string]any{"issue": 42, "to": "architect", "topic": "auth", "question": "JWT or sessions?", "waitSeconds": 0})
	rev := connect(t, ws, "reviewer", nil)
	ok(t, rev, "clarify_request", map[string]any{"issue": 9, "to": "architect", "topic": "other", "question": "Elsewhere?", "blocking": false})
	ok(t, eng, "clarify_escalate", map[string]any{"id": "CLR-42-001", "summary": "Needs the security lead."})
	ok(t, rev, "clarify_escalate", map[string]any{"id": "CLR-9-001", "summary": "Another issue, another agent."})
	in := ok(t, eng, "clarify_inbox", nil)
	esc, _ := in["escalations"].([]any)
	if len(esc) != 1 || esc[0].(map[string]any)["id"] != "CLR-42-001" {
		t.Fatalf("escalations: %v", in["escalations"])
	}
}

func TestReadyRefused(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng := connect(t, ws, "engineer", nil)
	// A clarifications "directory" that is a file: nothing can be scanned.
	if err := os.MkdirAll(ws.StateDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws.ClarificationsDir(), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused(t, eng, "ready", nil, "")
}

func TestBlockingRequestWaitsForTheAnswer(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	var mu sync.Mutex
	var notes []string
	noted := make(chan struct{}, 100)
	eng := connect(t, ws, "engineer", &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		notes = append(notes, r.Params.Message)
		mu.Unlock()
		noted <- struct{}{}
	}})
	arch := connect(t, ws, "architect", nil)
	answered := make(chan string, 1)
	go func() {
		// The architect answers once the engineer was told it waits.
		<-noted
		res, _ := call(t, arch, "clarify_answer", map[string]any{"id": "CLR-42-001", "body": "Use PostgreSQL."})
		answered <- text(res)
	}()
	params := &mcp.CallToolParams{Name: "clarify_request", Arguments: map[string]any{"to": "architect", "topic": "database",
		"question": "Which database?", "waitSeconds": 20}}
	params.SetProgressToken("tok-1")
	res, err := eng.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("blocking request: %v %s", err, text(res))
	}
	out := res.StructuredContent.(map[string]any)
	if out["answer"] != "Use PostgreSQL." || out["answeredBy"] != "architect" || out["timedOut"] == true {
		t.Fatalf("blocking request: %v (the answer: %s)", out, <-answered)
	}
	// The answer the wait returned has its receipt: the host's next
	// mid-session hook does not deliver it again (issue 34).
	show, _ := call(t, eng, "clarify_show", map[string]any{"id": "CLR-42-001"})
	if !strings.Contains(text(show), `"host":"mcp"`) && !strings.Contains(text(show), `"host": "mcp"`) {
		t.Errorf("no receipt after the wait: %s", text(show))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) == 0 || !strings.Contains(notes[0], "CLR-42-001 waits for architect") {
		t.Fatalf("progress notifications: %q", notes)
	}
}

func TestBlockingRequestTimesOut(t *testing.T) {
	t.Parallel()
	// The server's own bound is the longest there is: a waitSeconds the
	// server ignored would wait 10 minutes, past any bound of this test,
	// whose upper bound is then so far from 1 s that no load makes a
	// 1 s wait reach it (it had been 10 s, which a loaded machine can).
	o := testOptions(t, newWorkspace(t), "engineer")
	o.Wait = MaxWait
	eng := connectWith(t, o, nil)
	start := time.Now()
	out := ok(t, eng, "clarify_request", map[string]any{"to": "architect", "topic": "queue", "question": "Which queue?", "waitSeconds": 1})
	if out["timedOut"] != true || out["id"] != "CLR-42-001" || !strings.Contains(out["next"].(string), "clarify_show") {
		t.Fatalf("timed-out request: %v", out)
	}
	if d := time.Since(start); d < time.Second || d > 2*time.Minute {
		t.Fatalf("waited %s for a 1 s bound", d)
	}
}

// TestTamperedEntryMarked: a thread entry changed on disk since it was
// written is shown marked, in the thread and in the record's count.
func TestTamperedEntryMarked(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng := connect(t, ws, "engineer", nil)
	ok(t, eng, "clarify_request", map[string]any{"issue": 4, "to": "architect", "topic": "hashing", "question": "Which hash do we use?", "blocking": false})
	path := ws.LedgerFile(4)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), "Which hash do we use?", "Which hash do we skip?", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	show := ok(t, eng, "clarify_show", map[string]any{"id": "CLR-4-001"})
	c := show["clarification"].(map[string]any)
	thread := c["thread"].([]any)
	if c["tampered"] != float64(1) || thread[0].(map[string]any)["integrity"] != "tampered" {
		t.Fatalf("tampered entry shown as %v", c)
	}
}
