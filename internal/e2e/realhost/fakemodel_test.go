//go:build realhost

package realhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// A step is one scripted model turn: a tool call or the final text.
type step struct {
	// Tool picks the tool to call from the names the request offers;
	// nil makes the step a text reply.
	Tool func(offered []string) (name string, args map[string]any)
	Text string
	// Before, when set, runs before the step's reply is sent (each time
	// the step is played: make it idempotent): what happens outside the
	// host while the model "thinks".
	Before func()
}

// script is the turns of one session: the step played is the number of
// tool calls already in the conversation, so the server keeps no state
// per session and a host that retries a request gets the same answer.
type script []step

// recorded is one request the server received.
type recorded struct {
	Path   string
	Script string // the [[script:NAME]] marker of its conversation, if any
	Body   []byte
	Tools  []string
	Step   int
}

// fakeModel serves Anthropic Messages, OpenAI Responses and Chat
// Completions on 127.0.0.1, streaming (SSE) or not, playing the script
// the conversation names by a [[script:NAME]] marker in its text.
type fakeModel struct {
	t   testing.TB
	URL string

	mu      sync.Mutex
	scripts map[string]script
	reqs    []recorded
	changed chan struct{} // closed and replaced on every request
}

var scriptMarker = regexp.MustCompile(`\[\[script:([a-z0-9-]+)\]\]`)

func newFakeModel(t testing.TB) *fakeModel {
	m := &fakeModel{t: t, scripts: map[string]script{}, changed: make(chan struct{})}
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: m, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	m.URL = "http://" + ln.Addr().String()
	return m
}

// set names a script for conversations marked [[script:name]].
func (m *fakeModel) set(name string, s script) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scripts[name] = s
}

// requests returns the recorded requests of the script named (all when
// name is "").
func (m *fakeModel) requests(name string) []recorded {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []recorded
	for _, r := range m.reqs {
		if name == "" || r.Script == name {
			out = append(out, r)
		}
	}
	return out
}

// agentRequests are the requests of the script's agent loop, those that
// offer tools, in order: a host's side requests (a title, a summary)
// offer none.
func (m *fakeModel) agentRequests(name string) []recorded {
	var out []recorded
	for _, r := range m.requests(name) {
		if len(r.Tools) > 0 {
			out = append(out, r)
		}
	}
	return out
}

func (m *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		// Codex and Copilot list models; an empty list keeps the
		// configured one.
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
		m.record(recorded{Path: r.Method + " " + path, Body: body})
		return
	case strings.HasSuffix(path, "/messages/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"input_tokens":100}`)
		return
	case strings.HasSuffix(path, "/messages"):
		m.anthropic(w, path, body)
	case strings.HasSuffix(path, "/responses"):
		m.responses(w, path, body)
	case strings.HasSuffix(path, "/chat/completions"):
		m.chat(w, path, body)
	default:
		m.record(recorded{Path: r.Method + " " + path, Body: body})
		http.NotFound(w, r)
	}
}

func (m *fakeModel) record(rec recorded) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, rec)
	close(m.changed)
	m.changed = make(chan struct{})
}

// plan finds the script and step of a request: the marker in its text and
// the tool calls its history already holds.
func (m *fakeModel) plan(path string, body []byte, tools []string, calls int) (step, bool) {
	name := ""
	if mm := scriptMarker.FindSubmatch(body); mm != nil {
		name = string(mm[1])
	}
	m.record(recorded{Path: path, Script: name, Body: body, Tools: tools, Step: calls})
	m.mu.Lock()
	s, ok := m.scripts[name]
	m.mu.Unlock()
	if !ok || len(tools) == 0 {
		// A side request (a title, a summary): plain text.
		return step{Text: "ok"}, false
	}
	if calls >= len(s) {
		return step{Text: s[len(s)-1].Text}, true
	}
	if s[calls].Before != nil {
		s[calls].Before()
	}
	return s[calls], true
}

// --- Anthropic Messages ---

type anthropicReq struct {
	Stream   bool `json:"stream"`
	Model    string
	Tools    []struct{ Name string }
	Messages []struct {
		Role    string
		Content json.RawMessage
	}
}

func (m *fakeModel) anthropic(w http.ResponseWriter, path string, body []byte) {
	var req anthropicReq
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	calls := 0
	for _, msg := range req.Messages {
		var blocks []struct{ Type string }
		if msg.Role == "assistant" && json.Unmarshal(msg.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_use" {
					calls++
				}
			}
		}
	}
	st, _ := m.plan(path, body, tools, calls)
	var block map[string]any
	stop := "end_turn"
	if st.Tool != nil {
		name, args := st.Tool(tools)
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", calls), "name": name, "input": args}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": st.Text}
	}
	msg := map[string]any{"id": fmt.Sprintf("msg_%d", calls), "type": "message", "role": "assistant", "model": req.Model,
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}
	if !req.Stream {
		msg["content"] = []any{block}
		msg["stop_reason"] = stop
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
		return
	}
	msg["content"] = []any{}
	sse := newSSE(w)
	sse.event("message_start", map[string]any{"type": "message_start", "message": msg})
	if st.Tool != nil {
		input, _ := json.Marshal(block["input"])
		start := map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}
		sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
		sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": st.Text}})
	}
	sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

// --- OpenAI Responses ---

// nsSep joins a namespace and a tool in the names a step picks from.
const nsSep = "::"

func (m *fakeModel) responses(w http.ResponseWriter, path string, body []byte) {
	var req struct {
		Tools []struct {
			Type, Name string
			// A namespace (Codex's MCP servers) holds its tools.
			Tools []struct{ Name string }
		}
		Input []struct{ Type string }
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var tools []string
	for _, t := range req.Tools {
		switch {
		case t.Type == "namespace":
			for _, sub := range t.Tools {
				tools = append(tools, t.Name+nsSep+sub.Name)
			}
		case t.Name != "":
			tools = append(tools, t.Name)
		default:
			tools = append(tools, t.Type)
		}
	}
	calls := 0
	for _, it := range req.Input {
		if strings.HasSuffix(it.Type, "_call") {
			calls++
		}
	}
	st, _ := m.plan(path, body, tools, calls)
	var item map[string]any
	if st.Tool != nil {
		name, args := st.Tool(tools)
		a, _ := json.Marshal(args)
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", calls), "call_id": fmt.Sprintf("call_%d", calls),
			"name": name, "arguments": string(a), "status": "completed"}
		if ns, tool, ok := strings.Cut(name, nsSep); ok {
			item["namespace"], item["name"] = ns, tool
		}
	} else {
		item = map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", calls), "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}}
	}
	id := fmt.Sprintf("resp_%d", calls)
	sse := newSSE(w)
	sse.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": nil, "output_tokens": 10,
			"output_tokens_details": nil, "total_tokens": 110}}})
}

// --- Chat Completions ---

func (m *fakeModel) chat(w http.ResponseWriter, path string, body []byte) {
	var req struct {
		Stream bool `json:"stream"`
		Model  string
		Tools  []struct {
			Function struct{ Name string }
		}
		Messages []struct {
			Role      string
			ToolCalls []json.RawMessage `json:"tool_calls"`
		}
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Function.Name)
	}
	calls := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			calls += len(msg.ToolCalls)
		}
	}
	st, _ := m.plan(path, body, tools, calls)
	delta := map[string]any{"role": "assistant"}
	finish := "stop"
	if st.Tool != nil {
		name, args := st.Tool(tools)
		a, _ := json.Marshal(args)
		delta["content"] = nil
		delta["tool_calls"] = []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", calls), "type": "function",
			"function": map[string]any{"name": name, "arguments": string(a)}}}
		finish = "tool_calls"
	} else {
		delta["content"] = st.Text
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	id := fmt.Sprintf("chatcmpl-%d", calls)
	if !req.Stream {
		msg := map[string]any{}
		for k, v := range delta {
			msg[k] = v
		}
		if tc, ok := msg["tool_calls"].([]any); ok {
			for _, c := range tc {
				delete(c.(map[string]any), "index")
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	sse := newSSE(w)
	chunk := func(choice map[string]any, withUsage bool) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model, "choices": []any{choice}}
		if withUsage {
			c["usage"] = usage
		}
		return c
	}
	sse.data(chunk(map[string]any{"index": 0, "delta": delta, "finish_reason": nil}, false))
	sse.data(chunk(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}, true))
	sse.raw("data: [DONE]\n\n")
}

// sse writes server-sent events.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (s *sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	s.raw("event: " + name + "\ndata: " + string(b) + "\n\n")
}

func (s *sse) data(v any) {
	b, _ := json.Marshal(v)
	s.raw("data: " + string(b) + "\n\n")
}

func (s *sse) raw(text string) {
	_, _ = io.WriteString(s.w, text)
	if s.f != nil {
		s.f.Flush()
	}
}

// bodyHolds reports whether any recorded request of the script holds all
// the substrings (JSON escaping undone: the bodies are searched as their
// decoded strings too).
func bodyHolds(reqs []recorded, subs ...string) bool {
	for _, r := range reqs {
		text := string(r.Body) + "\n" + unescapeJSON(r.Body)
		all := true
		for _, s := range subs {
			if !strings.Contains(text, s) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// unescapeJSON joins every string value of a JSON document, so that text
// a host embedded with escapes (quotes, newlines) can be searched.
func unescapeJSON(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	var buf bytes.Buffer
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			buf.WriteString(t)
			buf.WriteByte('\n')
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	return buf.String()
}
