// The MCP server's test harness (a workspace, a server acting as an agent
// on it over an in-memory transport, and calls that must succeed or be
// refused), the tools it lists, and calls in flight at once. The clarify
// tools are tested in clarify_test.go, the memory tools in memory_test.go.

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
	done := make(chan struct{})
	o.done = done
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
	// As Run: the session's end stops the resource watcher, and nothing
	// of the server runs on in the workspace t.TempDir is removing (the
	// watcher did, and the removal failed: directory not empty).
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait(); close(done); s.watch.loops.Wait(); cancel() })
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
