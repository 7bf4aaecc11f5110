package delivery

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

func TestScanReadsTheTopLevelOnly(t *testing.T) {
	t.Parallel()
	tool := map[string]any{"stdout": `he said "session_id": "fake" \ and } { [`, "nested": map[string]any{"session_id": "inner", "list": []any{1, "}", nil, true}}}
	doc, _ := json.Marshal(map[string]any{"tool_response": tool, "session_id": "s-1\u00e9", "hook_event_name": "PostToolUse",
		"cwd": "/p/q", "agent_type": "reviewer", "n": 3.5, "ok": false})
	p, complete, err := Scan(doc)
	if err != nil || !complete {
		t.Fatalf("complete %v err %v", complete, err)
	}
	if p.SessionID != "s-1\u00e9" || p.Event != "PostToolUse" || p.Cwd != "/p/q" || p.AgentType != "reviewer" {
		t.Errorf("%+v", p)
	}
	// Copilot CLI's camelCase.
	p, complete, _ = Scan([]byte(` {"sessionId":"c-1","cwd":"/x","toolResult":{"textResultForLlm":"a\\\"b\\\\"}} `))
	if !complete || p.SessionID != "c-1" || p.Cwd != "/x" {
		t.Errorf("copilot: %+v %v", p, complete)
	}
	// Every prefix of the document is incomplete, never an error.
	for i := 0; i < len(doc); i++ {
		if _, complete, err := Scan(doc[:i]); complete || err != nil {
			t.Fatalf("prefix %d: complete %v err %v", i, complete, err)
		}
	}
	if _, _, err := Scan([]byte("not json")); err == nil {
		t.Error("text taken for a payload")
	}
}

// A host that keeps stdin open after its payload is not waited for.
func TestReadPayloadStopsAtTheWholeObject(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = io.WriteString(pw, `{"session_id":"s1","hook_event_name":"Stop"}`) }()
	p := ReadPayload(pr, time.Hour)
	if p.SessionID != "s1" || p.Event != "Stop" {
		t.Errorf("%+v", p)
	}
	if p := ReadPayload(strings.NewReader(""), time.Hour); p.SessionID != "" {
		t.Errorf("empty: %+v", p)
	}
}
