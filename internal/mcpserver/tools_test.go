package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentx-dev/agentx/internal/core/doctor"
)

// listed is tools/list as a client reads it off the wire.
func listed(t *testing.T, cs *mcp.ClientSession) (map[string]map[string]any, int) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(res)
	var doc struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, tl := range doc.Tools {
		out[tl["name"].(string)] = tl
	}
	return out, len(data)
}

func prop(t *testing.T, tool map[string]any, name string) map[string]any {
	t.Helper()
	p, _ := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)[name].(map[string]any)
	if p == nil {
		t.Fatalf("%s: no property %s", tool["name"], name)
	}
	return p
}

// TestToolAnnotations: every tool has a title and all four hints, set as
// the tool behaves.
func TestToolAnnotations(t *testing.T) {
	t.Parallel()
	tools, size := listed(t, connect(t, newWorkspace(t), "engineer", nil))
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	want := map[string]hints{
		"artifact_list":    {readOnly: true, idempotent: true},
		"artifact_show":    {readOnly: true, idempotent: true},
		"clarify_request":  {openWorld: true},
		"clarify_answer":   {},
		"clarify_ask":      {openWorld: true},
		"clarify_resolve":  {idempotent: true},
		"clarify_abandon":  {destructive: true, idempotent: true},
		"clarify_escalate": {idempotent: true},
		"clarify_inbox":    {readOnly: true, idempotent: true},
		"clarify_show":     {readOnly: true, idempotent: true},
		"memory_search":    {readOnly: true, idempotent: true},
		"memory_timeline":  {readOnly: true, idempotent: true},
		"memory_get":       {readOnly: true, idempotent: true},
		"memory_remember":  {idempotent: true},
		"ready":            {readOnly: true, idempotent: true},
		"status":           {readOnly: true, idempotent: true, openWorld: true},
	}
	if len(tools) != len(want) {
		t.Errorf("%d tools, want %d", len(tools), len(want))
	}
	for name, w := range want {
		tool := tools[name]
		ann, _ := tool["annotations"].(map[string]any)
		if tool["title"] == nil || tool["title"] == "" || ann == nil {
			t.Errorf("%s: no title or annotations: %v", name, tool)
			continue
		}
		got := hints{ann["readOnlyHint"] == true, ann["destructiveHint"] == true, ann["idempotentHint"] == true, ann["openWorldHint"] == true}
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, set := ann[k]; !set {
				t.Errorf("%s: %s not set", name, k)
			}
		}
		if got != w {
			t.Errorf("%s: hints %+v, want %+v", name, got, w)
		}
	}
	// The figure docs/mcp.md quotes: tools/list was 32,796 bytes.
	if size > 12*1024 {
		t.Errorf("tools/list is %d bytes, more than 12 KiB", size)
	}
}

// TestSchemaBounds: the bounds the descriptions state are in the schemas,
// no input type is nullable, and a call breaking one is refused with a
// code before the tool runs.
func TestSchemaBounds(t *testing.T) {
	t.Parallel()
	cs := connect(t, newWorkspace(t), "engineer", nil)
	tools, _ := listed(t, cs)
	wait := prop(t, tools["clarify_request"], "waitSeconds")
	if wait["maximum"] != 600.0 || wait["minimum"] != 0.0 || wait["type"] != "integer" {
		t.Errorf("waitSeconds: %v", wait)
	}
	ids := prop(t, tools["memory_get"], "ids")
	if ids["minItems"] != 1.0 || ids["maxItems"] != 20.0 || ids["items"].(map[string]any)["maxLength"] != 100.0 {
		t.Errorf("memory_get.ids: %v", ids)
	}
	for _, tool := range []string{"clarify_request", "clarify_answer", "memory_remember"} {
		if is := prop(t, tools[tool], "issue"); is["minimum"] != 1.0 || is["maximum"] != 1e9 {
			t.Errorf("%s.issue: %v", tool, is)
		}
	}
	if cat := prop(t, tools["memory_search"], "category"); len(cat["enum"].([]any)) != 5 {
		t.Errorf("memory_search.category: %v", cat)
	}
	if cat := prop(t, tools["memory_remember"], "category"); fmt.Sprint(cat["enum"]) != "[decision key-fact error code-change]" {
		t.Errorf("memory_remember.category: %v", cat)
	}
	if q := prop(t, tools["clarify_request"], "question"); q["minLength"] != 1.0 || q["maxLength"] != 2000.0 {
		t.Errorf("question: %v", q)
	}
	for name, tool := range tools {
		props, _ := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)
		for pname, p := range props {
			if _, many := p.(map[string]any)["type"].([]any); many {
				t.Errorf("%s.%s: a nullable type %v", name, pname, p)
			}
		}
	}
	// Refused by the schema, with the code and the retry advice of every error.
	msg := refused(t, cs, "clarify_request", map[string]any{"to": "architect", "topic": "t", "question": "q?", "waitSeconds": 601}, "INVALID_INPUT")
	if !strings.Contains(msg, "maximum") || !strings.Contains(msg, "hint: the arguments break") {
		t.Errorf("waitSeconds 601: %q", msg)
	}
	refused(t, cs, "memory_get", map[string]any{"ids": []string{}}, "INVALID_INPUT")
	// A null argument means "not set".
	ok(t, cs, "clarify_request", map[string]any{"to": "architect", "topic": "nulls", "question": "Null?", "waitSeconds": nil, "blocking": false})
}

// TestFailuresSayWhetherToRetry: every tool error carries retry advice.
func TestFailuresSayWhetherToRetry(t *testing.T) {
	t.Parallel()
	cs := connect(t, newWorkspace(t), "engineer", nil)
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		code  string
		retry string
	}{
		{"clarify_show", map[string]any{"id": "CLR-1-001"}, "NOT_FOUND", RetryFix},
		{"clarify_request", map[string]any{"from": "architect", "to": "engineer", "topic": "x", "question": "y?"}, "SCOPE_VIOLATION", RetryFix},
		{"memory_search", map[string]any{"category": "gossip"}, "INVALID_INPUT", RetryFix},
	} {
		res, out := call(t, cs, tc.tool, tc.args)
		e, _ := out["error"].(map[string]any)
		if !res.IsError || e["code"] != tc.code || e["retry"] != tc.retry {
			t.Errorf("%s: %v, want %s retry %s", tc.tool, out, tc.code, tc.retry)
		}
	}
	if retryOf("LOCK_TIMEOUT") != RetryLater || retryOf("MAX_ROUNDS_EXCEEDED") != RetryNo || retryOf("CORRUPT_STATE") != RetryNo {
		t.Error("retryOf")
	}
}

// TestEmptyResultsAreLists: a search that finds nothing, an empty ready
// queue and a failed call's lists are [] on the wire, never {} or null.
func TestEmptyResultsAreLists(t *testing.T) {
	t.Parallel()
	cs := connect(t, newWorkspace(t), "engineer", nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "nothing matches this"}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(res.StructuredContent)
	// The text form is the same document, after the one line that frames
	// stored text as data (issue 32).
	if string(data) != `{"hits":[]}` || !strings.HasSuffix(text(res), "\n"+`{"hits":[]}`) {
		t.Errorf("an empty search: %s / %s", data, text(res))
	}
	if out := ok(t, cs, "ready", nil); fmt.Sprint(out["issues"]) != "[]" {
		t.Errorf("an empty ready queue: %v", out)
	}
	_, out := call(t, cs, "memory_get", map[string]any{"ids": []string{"obs-none"}})
	if obs, isList := out["observations"].([]any); !isList || len(obs) != 0 {
		t.Errorf("a failed get: %v", out)
	}
}

// TestUnknownIDsBounded: memory_get reports unknown ids by id, cut.
func TestUnknownIDsBounded(t *testing.T) {
	t.Parallel()
	cs := connect(t, newWorkspace(t), "engineer", nil)
	long := strings.Repeat("x", 50_000)
	res, _ := call(t, cs, "memory_get", map[string]any{"ids": []string{long, long}})
	if !res.IsError || len(text(res)) > 2000 {
		t.Errorf("50 KB ids: %d bytes of error", len(text(res)))
	}
	res, out := call(t, cs, "memory_get", map[string]any{"ids": []string{"obs-a", "obs-b"}})
	if !res.IsError || !strings.Contains(text(res), "obs-a, obs-b") || out["error"].(map[string]any)["code"] != "NOT_FOUND" {
		t.Errorf("two unknown ids: %s", text(res))
	}
}

// TestSearchPagingAndFilters: pages put together are the whole list in
// order; since/until and archived filter.
func TestSearchPagingAndFilters(t *testing.T) {
	t.Parallel()
	cs := connect(t, newWorkspace(t), "engineer", nil)
	for i := range 7 {
		ok(t, cs, "memory_remember", map[string]any{"issue": 5, "content": fmt.Sprintf("Paging fact %d about the cache layer.", i)})
	}
	all := ok(t, cs, "memory_search", map[string]any{"query": "cache", "limit": 100})["hits"].([]any)
	if len(all) != 7 {
		t.Fatalf("%d hits, want 7", len(all))
	}
	var paged []any
	offset := 0
	for range 10 {
		out := ok(t, cs, "memory_search", map[string]any{"query": "cache", "limit": 3, "offset": offset})
		paged = append(paged, out["hits"].([]any)...)
		next, _ := out["nextOffset"].(float64)
		if next == 0 {
			break
		}
		offset = int(next)
	}
	if fmt.Sprint(paged) != fmt.Sprint(all) {
		t.Errorf("pages %v\nall %v", paged, all)
	}
	if out := ok(t, cs, "memory_search", map[string]any{"query": "cache", "until": "2000-01-01"}); len(out["hits"].([]any)) != 0 {
		t.Errorf("until 2000: %v", out)
	}
	if out := ok(t, cs, "memory_search", map[string]any{"since": "1d"}); len(out["hits"].([]any)) != 7 {
		t.Errorf("since 1d: %v", out)
	}
	if out := ok(t, cs, "memory_search", map[string]any{"query": "cache", "archived": true}); len(out["hits"].([]any)) != 0 {
		t.Errorf("archived: %v", out)
	}
	refused(t, cs, "memory_search", map[string]any{"since": "yesterday-ish"}, "INVALID_INPUT")
}

// TestStatusTool: doctor's warnings and failures with their fixes, the
// store's figures and the inbox counts.
func TestStatusTool(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	o := testOptions(t, ws, "engineer")
	o.Doctor = func(context.Context) []doctor.Finding {
		return []doctor.Finding{{Check: "binary", Status: doctor.StatusOK, Message: "fine"},
			{Check: "hosts", Status: doctor.StatusFail, Message: "no host runs the hooks", Fix: "agentx-hook setup --claude"}}
	}
	cs := connectWith(t, o, nil)
	ok(t, cs, "memory_remember", map[string]any{"content": "Status counts this."})
	ok(t, cs, "clarify_request", map[string]any{"to": "architect", "topic": "s", "question": "Status?", "blocking": false})
	out := ok(t, cs, "status", nil)
	f, _ := out["findings"].([]any)
	mem, _ := out["memory"].(map[string]any)
	if out["healthy"] != false || len(f) != 1 || f[0].(map[string]any)["fix"] != "agentx-hook setup --claude" ||
		mem["observations"] != 1.0 || out["requests"] != 1.0 || out["issue"] != 42.0 {
		t.Fatalf("status: %v", out)
	}
}

// TestInboxKeepsOwnEscalationsWithoutAnIssue: a server with no default
// issue still lists the escalations of its own requests.
func TestInboxKeepsOwnEscalationsWithoutAnIssue(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	o := testOptions(t, ws, "engineer")
	o.Issue = nil
	eng := connectWith(t, o, nil)
	ok(t, eng, "clarify_request", map[string]any{"issue": 7, "to": "architect", "topic": "auth", "question": "Tokens?", "waitSeconds": 0})
	ok(t, eng, "clarify_escalate", map[string]any{"id": "CLR-7-001", "summary": "Needs a person."})
	in := ok(t, eng, "clarify_inbox", nil)
	esc, _ := in["escalations"].([]any)
	if len(esc) != 1 || esc[0].(map[string]any)["id"] != "CLR-7-001" {
		t.Fatalf("escalations: %v", in)
	}
}
