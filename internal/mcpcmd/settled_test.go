package mcpcmd

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMCPResolveRemembersTheDecision: clarify_resolve over MCP keeps the
// thread as one decision in memory, as the CLI's resolve does (both build
// the router through the App, which wires the Settled hook).
func TestMCPResolveRemembersTheDecision(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	c := startMCP(t, root, "--agent", "engineer")
	c.initialize()
	res := c.tool("clarify_request", map[string]any{"issue": 6, "to": "architect", "topic": "queue choice",
		"question": "Kafka or a Postgres outbox?", "blocking": false})
	if sc, _ := res["structuredContent"].(map[string]any); res["isError"] == true || sc["id"] != "CLR-6-001" {
		t.Fatalf("clarify_request: %v", res)
	}
	if out, err := exec.Command("agentx-hook", "--root", root, "clarify", "answer", "CLR-6-001", "--body", "A Postgres outbox.").CombinedOutput(); err != nil {
		t.Fatalf("clarify answer: %v\n%s", err, out)
	}
	res = c.tool("clarify_resolve", map[string]any{"id": "CLR-6-001", "body": "Events leave through a Postgres outbox."})
	if res["isError"] == true {
		t.Fatalf("clarify_resolve: %v", res)
	}
	out, err := exec.Command("agentx-hook", "--root", root, "memory", "search", "outbox", "--issue", "6").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "  engineer  decision  ") || !strings.Contains(string(out), "CLR-6-001 settled (queue choice): Events leave through a Postgres outbox.") {
		t.Fatalf("memory search outbox: %v\n%s", err, out)
	}
}
