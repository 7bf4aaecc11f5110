package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// newWorkspace is a workspace with `init`'s default config and workflows.
func newWorkspace(t *testing.T) workspace.Workspace {
	t.Helper()
	ws := workspace.Workspace{Root: t.TempDir()}
	for name, data := range config.DefaultFiles() {
		p := filepath.Join(ws.AgentxDir(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// connect starts a server acting as agent on ws and returns a client
// session to it over an in-memory transport.
func connect(t *testing.T, ws workspace.Workspace, agent string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, testOptions(t, ws, agent), opts)
}

// connectWith starts a server with o and returns a client session to it.
func connectWith(t *testing.T, o Options, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	_, cs := connectServer(t, o, opts)
	return cs
}

// connectServer is connectWith that also returns the server's handlers.
func connectServer(t *testing.T, o Options, opts *mcp.ClientOptions) (*server, *mcp.ClientSession) {
	t.Helper()
	s, srv, err := newServer(o)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait(); cancel() })
	return s, cs
}

// testOptions is a server acting as agent on ws, wired as the CLI wires
// it; calls that name no issue get 42.
func testOptions(t *testing.T, ws workspace.Workspace, agent string) Options {
	t.Helper()
	return testOptionsLocks(t, ws, agent, 0)
}

// testOptionsLocks is testOptions whose locks wait up to lockWait (0: the
// default).
func testOptionsLocks(t *testing.T, ws workspace.Workspace, agent string, lockWait time.Duration) Options {
	t.Helper()
	cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.Real{}
	locks := lock.New(lock.Options{Clock: clk, Agent: agent, Wait: lockWait})
	trail := &audit.Trail{Dir: ws.StateDir(), Locks: locks, Clock: clk, Tool: "agentx-hook", Version: "test"}
	rt := router.New(router.Options{WS: ws, Locks: locks, Config: cfg, Clock: clk, NoSync: true, Audit: trail,
		Events: &events.Log{Path: ws.EventsFile(), Locks: locks, Clock: clk}})
	mem := memory.New(ws.MemoryDir(), locks, clk)
	mem.NoSync, mem.Audit, mem.Actor = true, trail, agent
	return Options{WS: ws, Agent: agent, Config: cfg, Router: rt, Memory: mem, Version: "test",
		Poll: 20 * time.Millisecond, Issue: func(context.Context) (int, bool) { return 42, true }}
}

// call calls a tool and returns its result and structured content.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(data, &out)
	}
	return res, out
}

// ok calls a tool that must succeed.
func ok(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, out := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	return out
}

// refused calls a tool that must fail with code, and returns its text.
func refused(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, code string) string {
	t.Helper()
	res, out := call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded: %s", name, args, text(res))
	}
	msg := text(res)
	if code != "" {
		if !strings.HasPrefix(msg, "error: "+code+": ") {
			t.Fatalf("%s(%v): %q, want code %s", name, args, msg, code)
		}
		if e, _ := out["error"].(map[string]any); e == nil || e["code"] != code {
			t.Fatalf("%s: structured error %v, want code %s", name, out, code)
		}
	}
	return msg
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestToolsListed(t *testing.T) {
	t.Parallel()
	cs := connect(t, newWorkspace(t), "engineer", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"artifact_list", "artifact_show", "clarify_abandon", "clarify_answer", "clarify_ask", "clarify_escalate", "clarify_inbox", "clarify_request", "clarify_resolve", "clarify_show",
		"memory_get", "memory_remember", "memory_search", "memory_timeline", "ready", "status"}
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	for _, name := range want {
		tool := got[name]
		switch {
		case tool == nil:
			t.Errorf("tool %s missing", name)
		case tool.Description == "" || strings.Contains(tool.Description, "\n"):
			t.Errorf("%s: description %q is not one line", name, tool.Description)
		case tool.InputSchema == nil || tool.OutputSchema == nil:
			t.Errorf("%s: no input or output schema", name)
		}
	}
	if len(res.Tools) != len(want) {
		t.Errorf("%d tools, want %d", len(res.Tools), len(want))
	}
}

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

func TestMemoryTools(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng := connect(t, ws, "engineer", nil)
	first := ok(t, eng, "memory_remember", map[string]any{"content": "Token refresh happens in the auth middleware, never in controllers.", "issue": 42})
	id, _ := first["id"].(string)
	if id == "" || first["redacted"] == true {
		t.Fatalf("remember: %v", first)
	}
	ok(t, eng, "memory_remember", map[string]any{"content": "The session store is Redis.", "category": "key-fact"})
	secret := ok(t, eng, "memory_remember", map[string]any{"content": "Deploy key is AKIAIOSFODNN7EXAMPLE for the staging bucket."})
	if secret["redacted"] != true {
		t.Fatalf("a secret was not redacted: %v", secret)
	}
	dup := ok(t, eng, "memory_remember", map[string]any{"content": "The session store is Redis.", "category": "key-fact"})
	if dup["duplicate"] != true {
		t.Fatalf("duplicate: %v", dup)
	}
	search := ok(t, eng, "memory_search", map[string]any{"query": "token refresh middleware"})
	hits, _ := search["hits"].([]any)
	if len(hits) == 0 || hits[0].(map[string]any)["id"] != id || hits[0].(map[string]any)["tokens"] == nil {
		t.Fatalf("search: %v", search)
	}
	tl := ok(t, eng, "memory_timeline", map[string]any{"id": id, "before": 1, "after": 1})
	obs, _ := tl["observations"].([]any)
	if len(obs) != 2 || obs[0].(map[string]any)["hit"] != true {
		t.Fatalf("timeline: %v", tl)
	}
	get := ok(t, eng, "memory_get", map[string]any{"ids": []string{id, secret["id"].(string), "obs-engineer-42-1-missing"}})
	obs, _ = get["observations"].([]any)
	if len(obs) != 2 || strings.Contains(obs[1].(map[string]any)["content"].(string), "AKIA") || obs[0].(map[string]any)["integrity"] != "intact" {
		t.Fatalf("get: %v", get)
	}
	if nf, _ := get["notFound"].([]any); len(nf) != 1 {
		t.Fatalf("get: not_found %v", get)
	}
	// An observation changed on disk since it was stored is marked.
	path := filepath.Join(ws.MemoryDir(), "issue-42.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), "never in controllers", "in controllers too", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	get = ok(t, eng, "memory_get", map[string]any{"ids": []string{id}})
	if o := get["observations"].([]any)[0].(map[string]any); o["integrity"] != "tampered" {
		t.Fatalf("tampered observation shown as %v", o["integrity"])
	}
}

func TestMemoryRefusals(t *testing.T) {
	t.Parallel()
	eng := connect(t, newWorkspace(t), "engineer", nil)
	refused(t, eng, "memory_remember", map[string]any{"content": "x y z", "agent": "architect"}, "SCOPE_VIOLATION")
	refused(t, eng, "memory_remember", map[string]any{"content": "   "}, "INVALID_INPUT")
	refused(t, eng, "memory_remember", map[string]any{"content": "<private>only this</private>"}, "INVALID_INPUT")
	refused(t, eng, "memory_remember", map[string]any{"content": strings.Repeat("a", 2001)}, "INVALID_INPUT")
	refused(t, eng, "memory_remember", map[string]any{"content": "fine", "category": "gossip"}, "INVALID_INPUT")
	refused(t, eng, "memory_search", map[string]any{}, "INVALID_INPUT")
	refused(t, eng, "memory_search", map[string]any{"query": "x", "category": "gossip"}, "INVALID_INPUT")
	refused(t, eng, "memory_timeline", map[string]any{"id": "obs-engineer-42-1-missing"}, "NOT_FOUND")
	refused(t, eng, "memory_get", map[string]any{"ids": []string{"obs-engineer-42-1-missing"}}, "NOT_FOUND")
	refused(t, eng, "memory_get", map[string]any{"ids": []string{}}, "INVALID_INPUT")
}

// TestConcurrentCalls: calls in flight at once on one session and on two
// servers (one process's locker each) all land, with unique ids.
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	a, b := connect(t, ws, "engineer", nil), connect(t, ws, "engineer", nil)
	const n = 10
	var wg sync.WaitGroup
	ids := make(chan string, 2*n)
	for i := range 2 * n {
		cs := a
		if i%2 == 1 {
			cs = b
		}
		wg.Go(func() {
			res, out := call(t, cs, "clarify_request", map[string]any{"issue": 3, "to": "architect", "topic": fmt.Sprintf("topic %d", i),
				"question": fmt.Sprintf("Question %d?", i), "blocking": false})
			if res.IsError {
				t.Errorf("request %d: %s", i, text(res))
				return
			}
			ids <- out["id"].(string)
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("id %s twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 2*n {
		t.Fatalf("%d ids, want %d", len(seen), 2*n)
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
