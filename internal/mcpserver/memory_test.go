// The memory tools over MCP: remember (a secret redacted, a duplicate
// told), search, timeline and get, and what they refuse.

package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
