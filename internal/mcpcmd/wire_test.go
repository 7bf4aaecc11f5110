package mcpcmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// rawMCP speaks JSON-RPC to `agentx-hook mcp` as a process, without the
// SDK, so the wire format is checked independently of it.
type rawMCP struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Scanner
	nextID int
}

func startMCP(t *testing.T, root string, args ...string) *rawMCP {
	t.Helper()
	cmd := exec.Command("agentx-hook", append([]string{"--root", root, "mcp"}, args...)...)
	cmd.Env = append(os.Environ(), "AGENTX_AGENT=", "AGENTX_ISSUE=")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	c := &rawMCP{t: t, cmd: cmd, stdin: stdin, out: sc}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return c
}

func (c *rawMCP) send(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	data, _ := json.Marshal(msg)
	if _, err := c.stdin.Write(append(data, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

// call sends a request and returns its response, skipping notifications.
func (c *rawMCP) call(method string, params any) map[string]any {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	c.send(map[string]any{"id": id, "method": method, "params": params})
	for c.out.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(c.out.Bytes(), &msg); err != nil {
			c.t.Fatalf("not JSON on stdout: %q", c.out.Text())
		}
		if msg["jsonrpc"] != "2.0" {
			c.t.Fatalf("not JSON-RPC 2.0: %v", msg)
		}
		if got, ok := msg["id"].(float64); ok && int(got) == id {
			if msg["error"] != nil {
				c.t.Fatalf("%s: %v", method, msg["error"])
			}
			return msg["result"].(map[string]any)
		}
	}
	c.t.Fatalf("%s: stdout ended: %v", method, c.out.Err())
	return nil
}

func (c *rawMCP) initialize() map[string]any {
	c.t.Helper()
	res := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw-test", "version": "1"}})
	c.send(map[string]any{"method": "notifications/initialized"})
	return res
}

func (c *rawMCP) tool(name string, args map[string]any) map[string]any {
	c.t.Helper()
	return c.call("tools/call", map[string]any{"name": name, "arguments": args})
}

func TestMCPStdioWire(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	c := startMCP(t, root, "--agent", "engineer")
	init := c.initialize()
	if info, _ := init["serverInfo"].(map[string]any); info["name"] != "agentx" || init["protocolVersion"] != "2025-06-18" {
		t.Fatalf("initialize: %v", init)
	}
	if caps, _ := init["capabilities"].(map[string]any); caps["tools"] == nil {
		t.Fatalf("no tools capability: %v", init)
	}
	list := c.call("tools/list", map[string]any{})
	tools, _ := list["tools"].([]any)
	names := map[string]bool{}
	for _, tl := range tools {
		m := tl.(map[string]any)
		names[m["name"].(string)] = true
		if schema, _ := m["inputSchema"].(map[string]any); schema["type"] != "object" {
			t.Errorf("%s: input schema %v", m["name"], schema)
		}
	}
	for _, want := range []string{"clarify_request", "clarify_answer", "clarify_resolve", "clarify_escalate", "clarify_inbox",
		"clarify_show", "memory_search", "memory_timeline", "memory_get", "memory_remember", "ready"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	res := c.tool("clarify_request", map[string]any{"issue": 5, "to": "architect", "topic": "wire", "question": "Does the wire work?", "blocking": false})
	sc, _ := res["structuredContent"].(map[string]any)
	if res["isError"] == true || sc["id"] != "CLR-5-001" {
		t.Fatalf("clarify_request: %v", res)
	}
	res = c.tool("clarify_request", map[string]any{"issue": 5, "from": "architect", "to": "engineer", "topic": "x", "question": "y?"})
	content, _ := res["content"].([]any)
	if res["isError"] != true || len(content) == 0 ||
		!strings.HasPrefix(content[0].(map[string]any)["text"].(string), "error: SCOPE_VIOLATION: ") {
		t.Fatalf("a request sent as another agent: %v", res)
	}
	// The CLI sees what the server wrote.
	out, err := exec.Command("agentx-hook", "--root", root, "clarify", "--issue", "5", "--json").Output()
	if err != nil || !strings.Contains(string(out), `"CLR-5-001"`) {
		t.Fatalf("clarify --issue 5: %v\n%s", err, out)
	}
	_ = c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mcp exited with %v after stdin closed", err)
		}
	case <-time.After(testenv.HangGuard):
		t.Fatal("mcp did not exit after stdin closed")
	}
}

func TestMCPRefusesAnUnknownAgent(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	cmd := exec.Command("agentx-hook", "--root", root, "mcp", "--agent", "nobody")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "error: INVALID_INPUT") {
		t.Fatalf("mcp --agent nobody: %v\n%s", err, out)
	}
}

// TestMCPAndCLIOnOneLedger: an agent on the MCP server and CLI processes
// write one issue's ledger and memory at once; every record lands, with
// unique ids.
func TestMCPAndCLIOnOneLedger(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	const viaMCP, viaCLI = 12, 12
	c := startMCP(t, root, "--agent", "engineer")
	c.initialize()
	var wg sync.WaitGroup
	errs := make(chan error, 2*viaCLI)
	for i := range viaCLI {
		wg.Go(func() {
			out, err := exec.Command("agentx-hook", "--root", root, "clarify", "request", "--issue", "9", "--from", "reviewer", "--to", "architect",
				"--topic", fmt.Sprintf("cli %d", i), "--question", fmt.Sprintf("CLI question %d?", i), "--non-blocking").CombinedOutput()
			if err != nil {
				errs <- fmt.Errorf("cli request %d: %v\n%s", i, err, out)
			}
			out, err = exec.Command("agentx-hook", "--root", root, "memory", "add", "--agent", "reviewer", "--issue", "9", "--category", "key-fact",
				fmt.Sprintf("CLI fact number %d about the build.", i)).CombinedOutput()
			if err != nil {
				errs <- fmt.Errorf("cli memory add %d: %v\n%s", i, err, out)
			}
		})
	}
	for i := range viaMCP {
		res := c.tool("clarify_request", map[string]any{"issue": 9, "to": "architect", "topic": fmt.Sprintf("mcp %d", i),
			"question": fmt.Sprintf("MCP question %d?", i), "blocking": false})
		if res["isError"] == true {
			t.Fatalf("mcp request %d: %v", i, res)
		}
		res = c.tool("memory_remember", map[string]any{"issue": 9, "content": fmt.Sprintf("MCP decision number %d about the build.", i)})
		if res["isError"] == true {
			t.Fatalf("mcp remember %d: %v", i, res)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ws := workspace.Workspace{Root: root}
	l, err := (&ledger.Store{WS: ws, Locks: lock.New(lock.Options{})}).Load(9)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range l.Clarifications {
		if ids[r.ID] {
			t.Errorf("id %s twice", r.ID)
		}
		ids[r.ID] = true
	}
	if len(l.Clarifications) != viaMCP+viaCLI {
		t.Errorf("%d clarifications, want %d", len(l.Clarifications), viaMCP+viaCLI)
	}
	out, err := exec.Command("agentx-hook", "--root", root, "memory", "search", "--issue", "9", "--limit", "0", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct{ ID string } `json:"results"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	obsIDs := map[string]bool{}
	for _, r := range doc.Results {
		obsIDs[r.ID] = true
	}
	if len(doc.Results) != viaMCP+viaCLI || len(obsIDs) != len(doc.Results) {
		t.Errorf("%d observations (%d ids), want %d", len(doc.Results), len(obsIDs), viaMCP+viaCLI)
	}
	if _, err := os.Stat(filepath.Join(ws.StateDir(), "audit.jsonl")); err != nil {
		t.Errorf("no audit trail: %v", err)
	}
}

// TestMCPAnswersBeforeEOF: requests written all at once with stdin closed
// right after are all answered before the server exits.
func TestMCPAnswersBeforeEOF(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 2; i <= 6; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_remember","arguments":{"issue":3,"content":"Fact %d about EOF."}}}`+"\n", i, i)
	}
	cmd := exec.Command("agentx-hook", "--root", root, "mcp", "--agent", "engineer")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcp: %v\n%s", err, out)
	}
	ids := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var msg map[string]any
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		if res, _ := msg["result"].(map[string]any); res["isError"] == true {
			t.Errorf("call failed: %s", line)
		}
		ids[msg["id"].(float64)] = true
	}
	if len(ids) != 6 {
		t.Fatalf("%d answers, want 6:\n%s", len(ids), out)
	}
}

// TestMCPSurvivesABadLineAndEndsWithItsInput: through `agentx-hook mcp`
// as a host starts it, a malformed line is answered with -32700 and the
// session goes on; closing stdin during a 600 s blocking wait ends the
// process, the wait logged as abandoned.
func TestMCPSurvivesABadLineAndEndsWithItsInput(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	c := startMCP(t, root, "--agent", "engineer")
	c.initialize()
	if _, err := c.stdin.Write([]byte("{bad json\n")); err != nil {
		t.Fatal(err)
	}
	if !c.out.Scan() || !strings.Contains(c.out.Text(), `"code":-32700`) {
		t.Fatalf("a bad line: %q", c.out.Text())
	}
	if res := c.tool("ready", map[string]any{}); res["isError"] == true {
		t.Fatalf("ready after a bad line: %v", res)
	}
	c.send(map[string]any{"id": 99, "method": "tools/call", "params": map[string]any{"name": "clarify_request",
		"arguments": map[string]any{"issue": 4, "to": "architect", "topic": "eof", "question": "Still there?", "waitSeconds": 600}}})
	ledgerFile := workspace.Workspace{Root: root}.LedgerFile(4)
	for i := 0; ; i++ {
		if data, _ := os.ReadFile(ledgerFile); strings.Contains(string(data), "CLR-4-001") {
			break
		}
		if i == 3000 {
			t.Fatal("the blocking request was never recorded")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mcp exited with %v", err)
		}
	case <-time.After(60 * time.Second): // the wait was 600 s: only an abandoned one ends here
		t.Fatal("mcp did not exit after stdin closed during a blocking wait")
	}
	events, err := os.ReadFile(workspace.Workspace{Root: root}.EventsFile())
	if err != nil || !strings.Contains(string(events), `"clarification-wait-abandoned"`) {
		t.Fatalf("no abandoned event: %v\n%s", err, events)
	}
}
