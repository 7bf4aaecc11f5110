package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// stdioSession is a server on the stdio transport driven line by line,
// as a client process would: raw bytes in, JSON lines out.
type stdioSession struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
	raw   chan string
	done  chan error
	ws    workspace.Workspace
}

func serveStdio(t *testing.T, agent string) *stdioSession {
	t.Helper()
	ws := newWorkspace(t)
	return serveStdioWith(t, ws, testOptions(t, ws, agent))
}

func serveStdioWith(t *testing.T, ws workspace.Workspace, o Options) *stdioSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioSession{t: t, in: inW, lines: make(chan map[string]any, 100), raw: make(chan string, 100), done: make(chan error, 1), ws: ws}
	go func() {
		s.done <- Run(context.Background(), o, Stdio(inR, outW))
		_ = outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			s.raw <- sc.Text()
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				s.lines <- m
			} else {
				s.lines <- map[string]any{"batch": sc.Text()}
			}
		}
		close(s.lines)
	}()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return s
}

func (s *stdioSession) write(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// next is the next message the server wrote, skipping notifications.
func (s *stdioSession) next() map[string]any {
	s.t.Helper()
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				s.t.Fatal("the server's output ended")
			}
			if m["method"] != nil && m["id"] == nil {
				continue // a notification
			}
			return m
		case <-time.After(testenv.HangGuard):
			s.t.Fatalf("no answer in %s", testenv.HangGuard)
		}
	}
}

func (s *stdioSession) initialize(version string) {
	s.t.Helper()
	s.write(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.next(); m["result"] == nil {
		s.t.Fatalf("initialize: %v", m)
	}
	s.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// ping checks the session still answers.
func (s *stdioSession) ping(id int) {
	s.t.Helper()
	s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if m := s.next(); m["id"] != float64(id) || m["result"] == nil {
		s.t.Fatalf("ping %d: %v", id, m)
	}
}

// ended waits for Run to return after stdin closed.
func (s *stdioSession) ended() {
	s.t.Helper()
	_ = s.in.Close()
	select {
	case err := <-s.done:
		if err != nil && err != io.EOF {
			s.t.Fatalf("Run: %v", err)
		}
	case <-time.After(testenv.HangGuard):
		s.t.Fatal("the server did not end after its input closed")
	}
}

func errorOf(t *testing.T, m map[string]any) (code float64, msg string) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	if e == nil {
		t.Fatalf("not an error: %v", m)
	}
	return e["code"].(float64), e["message"].(string)
}

// TestStdioAnswersMalformedFrames: each malformed line gets the JSON-RPC
// error the spec names (with its id when one could be read) and the
// session goes on.
func TestStdioAnswersMalformedFrames(t *testing.T) {
	t.Parallel()
	s := serveStdio(t, "engineer")
	s.initialize("2025-06-18")
	for i, tc := range []struct {
		name, line string
		code       float64
		id         any
		says       string
	}{
		{"bad JSON", `{bad json`, -32700, nil, "parse error"},
		{"a truncated line", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memory_search"`, -32700, nil, "parse error"},
		{"a batch at 2025-06-18", `[{"jsonrpc":"2.0","id":50,"method":"ping"}]`, -32600, nil, "batches are not part of protocol 2025-06-18"},
		{"an empty batch", `[]`, -32600, nil, "empty batch"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":51,"method":"ping"}`, -32600, float64(51), `"jsonrpc" must be "2.0"`},
		{"no jsonrpc", `{"id":"x","method":"ping"}`, -32600, "x", `"jsonrpc" must be "2.0"`},
		{"a non-string method", `{"jsonrpc":"2.0","id":52,"method":5}`, -32600, float64(52), `"method" must be a string`},
		{"200K-deep nesting", strings.Repeat("[", 200000) + strings.Repeat("]", 200000), -32600, nil, "nested more than 64 levels"},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil, "id must be a string or an integer"},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil, "id must be a string or an integer"},
		{"not an object", `42`, -32600, nil, "a message is a JSON object"},
		{"an id alone", `{"jsonrpc":"2.0","id":60}`, -32600, float64(60), `needs "method"`},
		{"params not an object", `{"jsonrpc":"2.0","id":61,"method":"ping","params":7}`, -32600, float64(61), `"params" must be an object`},
		{"a 2 MB line", `{"jsonrpc":"2.0","id":53,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"` +
			strings.Repeat("x", 2<<20) + `"}}}`, -32600, float64(53), "more than the limit of 1048576"},
	} {
		s.write(tc.line)
		m := s.next()
		code, msg := errorOf(t, m)
		if code != tc.code || !strings.Contains(msg, tc.says) || m["id"] != tc.id {
			t.Errorf("%s: %v, want code %v id %v saying %q", tc.name, m, tc.code, tc.id, tc.says)
		}
		if _, has := m["id"]; tc.id == nil && has {
			t.Errorf("%s: an id it could not know: %v", tc.name, m)
		}
		s.ping(100 + i)
	}
	// A notification the session refuses (a second initialized) is
	// not answered, and the session goes on.
	s.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.ping(200)
	s.ended()
}

func TestStdioCodeOfSessionStateErrors(t *testing.T) {
	t.Parallel()
	s := serveStdio(t, "engineer")
	s.write(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if code, msg := errorOf(t, s.next()); code != -32600 || !strings.Contains(msg, "initializ") {
		t.Errorf("tools/list before initialize: %v %q", code, msg)
	}
	s.initialize("2025-06-18")
	s.write(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if code, _ := errorOf(t, s.next()); code != -32600 {
		t.Errorf("a second initialize: code %v", code)
	}
	s.ping(3)
	s.ended()
}

// TestStdioBatchesBeforeJune2025: at 2025-03-26 a batch is answered as one
// array, a bad element by its own error inside it.
func TestStdioBatchesBeforeJune2025(t *testing.T) {
	t.Parallel()
	s := serveStdio(t, "engineer")
	s.initialize("2025-03-26")
	s.write(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"1.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	m := s.next()
	var got []map[string]any
	if err := json.Unmarshal([]byte(m["batch"].(string)), &got); err != nil || len(got) != 3 {
		t.Fatalf("batch answer: %v", m)
	}
	ids := map[float64]bool{}
	for _, r := range got {
		ids[r["id"].(float64)] = true
		if r["id"] == float64(2) {
			if code, _ := errorOf(t, r); code != -32600 {
				t.Errorf("element 2: %v", r)
			}
		} else if r["result"] == nil {
			t.Errorf("element %v: %v", r["id"], r)
		}
	}
	if len(ids) != 3 {
		t.Errorf("batch ids: %v", got)
	}
	s.ping(4)
	s.ended()
}

// TestReadFrameBoundsMemory: a 100 MB line is read through and refused
// keeping at most the limit of it; the next line is read whole.
func TestReadFrameBoundsMemory(t *testing.T) {
	t.Parallel()
	const huge = 100 << 20
	r := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"`), &repeat{b: 'x', n: huge},
		strings.NewReader("\"}}\n{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}"))
	br := bufio.NewReaderSize(r, 64<<10)
	f := readFrame(br, MaxLine)
	if f.err != nil || f.size < huge || len(f.line) > MaxLine+1 {
		t.Fatalf("the long line: size %d, kept %d, err %v", f.size, len(f.line), f.err)
	}
	fr := parseFrame(f, MaxLine, MaxDepth, "2025-06-18")
	if len(fr.errs) != 1 || fr.errs[0].code != -32600 || fr.errs[0].id.Raw() != int64(7) {
		t.Fatalf("the long line's answer: %+v", fr.errs)
	}
	f = readFrame(br, MaxLine)
	if f.err != nil || string(f.line) != `{"jsonrpc":"2.0","id":8,"method":"ping"}` {
		t.Fatalf("the line after it: %q %v", f.line, f.err)
	}
	if f = readFrame(br, MaxLine); f.err != io.EOF {
		t.Fatalf("the end: %+v", f)
	}
}

// repeat reads n copies of b.
type repeat struct {
	b byte
	n int
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.n)
	for i := range n {
		p[i] = r.b
	}
	r.n -= n
	return n, nil
}

// waitForRecord waits until the ledger of issue holds id.
func waitForRecord(t *testing.T, ws workspace.Workspace, issue int, id string) {
	t.Helper()
	for range 3000 {
		data, _ := os.ReadFile(ws.LedgerFile(issue))
		if bytes.Contains(data, []byte(`"`+id+`"`)) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never recorded", id)
}

// abandonedEvent is the clarification-wait-abandoned event of id.
func abandonedEvent(t *testing.T, ws workspace.Workspace, id string) *events.WaitAbandonedPayload {
	t.Helper()
	log := events.Log{Path: ws.EventsFile()}
	evs, _, err := log.Read(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Type != events.ClarificationWaitAbandoned {
			continue
		}
		var p events.WaitAbandonedPayload
		if json.Unmarshal(e.Payload, &p) == nil && p.ClarificationID == id {
			return &p
		}
	}
	return nil
}

// TestStdioEOFAbandonsABlockingWait: the client closes its input while a
// 600 s wait runs: the wait ends at once, says so, and the event log
// records it; Run returns.
func TestStdioEOFAbandonsABlockingWait(t *testing.T) {
	t.Parallel()
	s := serveStdio(t, "engineer")
	s.initialize("2025-06-18")
	s.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"clarify_request","arguments":{"to":"architect","topic":"eof","question":"Still there?","waitSeconds":600}}}`)
	waitForRecord(t, s.ws, 42, "CLR-42-001")
	s.ended()
	m := s.next()
	sc, _ := m["result"].(map[string]any)["structuredContent"].(map[string]any)
	if m["id"] != float64(2) || sc["abandoned"] != true || sc["timedOut"] == true || !strings.Contains(sc["next"].(string), "closed its input") {
		t.Fatalf("the abandoned wait's answer: %v", m)
	}
	if p := abandonedEvent(t, s.ws, "CLR-42-001"); p == nil || p.Reason != "the client closed its input" {
		t.Fatalf("no abandoned event: %+v", p)
	}
}

// TestStdioCancelStopsABlockingWait: notifications/cancelled ends the
// wait, which is logged and never answered.
func TestStdioCancelStopsABlockingWait(t *testing.T) {
	t.Parallel()
	s := serveStdio(t, "engineer")
	s.initialize("2025-06-18")
	s.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"clarify_request","arguments":{"to":"architect","topic":"cancel","question":"Still wanted?","waitSeconds":600}}}`)
	waitForRecord(t, s.ws, 42, "CLR-42-001")
	s.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user stopped"}}`)
	for range 3000 {
		if abandonedEvent(t, s.ws, "CLR-42-001") != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p := abandonedEvent(t, s.ws, "CLR-42-001"); p == nil || p.Reason != "the client cancelled the call" {
		t.Fatalf("no abandoned event: %+v", p)
	}
	s.ping(3) // answered after the cancelled call returned; its answer would come first
	s.ended()
	for m := range s.lines {
		if m["id"] == float64(2) {
			t.Fatalf("a cancelled call answered: %v", m)
		}
	}
}

// TestStdioDuplicateIDRefused: a call reusing the id of a call in flight
// is refused (its answer could not be told apart) and the first goes on.
func TestStdioDuplicateIDRefused(t *testing.T) {
	t.Parallel()
	s := serveStdio(t, "engineer")
	s.initialize("2025-06-18")
	s.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"clarify_request","arguments":{"to":"architect","topic":"dup","question":"Twice?","waitSeconds":600}}}`)
	waitForRecord(t, s.ws, 42, "CLR-42-001")
	s.write(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	m := s.next()
	if code, msg := errorOf(t, m); code != -32600 || !strings.Contains(msg, "id 2 is already used") || m["id"] != nil {
		t.Fatalf("the duplicate: %v", m)
	}
	s.ping(3)
	s.ended()
	if m := s.next(); m["id"] != float64(2) {
		t.Fatalf("the first call's answer: %v", m)
	}
}

// TestStdioEOFCutsAStuckCall: a call stuck on a lock another process
// holds (for up to 10 minutes) does not keep the server after its input
// ended: Run returns while the lock is still held.
func TestStdioEOFCutsAStuckCall(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	s := serveStdioWith(t, ws, testOptionsLocks(t, ws, "engineer", 10*time.Minute))
	s.initialize("2025-06-18")
	s.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"clarify_request","arguments":{"to":"architect","topic":"stuck","question":"Stuck?","blocking":false}}}`)
	if m := s.next(); m["id"] != float64(2) {
		t.Fatalf("the request: %v", m)
	}
	holder := lock.New(lock.Options{Agent: "someone-else"})
	lk, err := holder.Acquire(context.Background(), ws.LedgerFile(42))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lk.Release() }()
	s.write(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"clarify_abandon","arguments":{"id":"CLR-42-001"}}}`)
	s.ended()
}
