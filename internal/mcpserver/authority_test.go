package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 32: a server acts only as its own agent, and its agent only where
// it is a party: it cannot answer its own question (unblocking itself) nor
// settle a record between two others.
func TestServerActsOnlyAsItsAgent(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	eng, arch := connect(t, ws, "engineer", nil), connect(t, ws, "architect", nil)
	pm := connect(t, ws, "product-manager", nil)
	ok(t, eng, "clarify_request", map[string]any{"issue": 42, "to": "architect", "topic": "cache", "question": "Which cache?", "blocking": true, "waitSeconds": 0})
	msg := refused(t, eng, "clarify_answer", map[string]any{"id": "CLR-42-001", "body": "Redis, I decided."}, "SCOPE_VIOLATION")
	if !strings.Contains(msg, "only architect may") || !strings.Contains(msg, "human:") {
		t.Fatalf("refusal does not say who may act: %s", msg)
	}
	ok(t, arch, "clarify_request", map[string]any{"issue": 42, "to": "product-manager", "topic": "scope", "question": "In scope?", "blocking": false})
	for _, verb := range []string{"clarify_resolve", "clarify_abandon", "clarify_escalate"} {
		refused(t, eng, verb, map[string]any{"id": "CLR-42-002"}, "SCOPE_VIOLATION")
	}
	refused(t, eng, "clarify_answer", map[string]any{"id": "CLR-42-002", "body": "yes"}, "SCOPE_VIOLATION")
	// The parties still act.
	ok(t, pm, "clarify_answer", map[string]any{"id": "CLR-42-002", "body": "Yes."})
	ok(t, arch, "clarify_resolve", map[string]any{"id": "CLR-42-002"})
	ok(t, arch, "clarify_answer", map[string]any{"id": "CLR-42-001", "body": "Redis."})
	ok(t, eng, "clarify_resolve", map[string]any{"id": "CLR-42-001"})
	data, err := os.ReadFile(filepath.Join(ws.StateDir(), "audit.jsonl"))
	if err != nil || strings.Count(string(data), "\n") != 6 {
		t.Fatalf("refusals reached the trail, or a change is missing: %v\n%s", err, data)
	}
}
