package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EOFGrace bounds how long the end of input waits for the next call in
// flight to be answered before the session ends (the calls still running
// then see their context cancelled); a blocking clarify_request's wait
// is abandoned at once instead (Gone). So the process exits as soon as
// its last call is answered, and within about this long of its client
// closing stdin when nothing moves.
const EOFGrace = 800 * time.Millisecond

// StdioTransport is the transport over a process's standard input and
// output: newline-delimited JSON-RPC, one message (or, before protocol
// 2025-06-18, one batch) a line. agentx owns this framing rather than
// using the SDK's IOTransport, whose read loop ends the session on the
// first malformed frame (go-sdk issue #1209): here every line that is not
// a valid message is answered with the JSON-RPC error the spec names
// (-32700 parse error, -32600 invalid request) and the next line is read.
//
// At the end of input it closes Gone (a blocking wait gives up and says
// so), answers the calls in flight while they keep finishing (EOFGrace),
// and then reports the end. A call the client cancelled (notifications/cancelled)
// is not answered.
type StdioTransport struct {
	r io.Reader
	w io.Writer
	// MaxLine and MaxDepth bound one inbound line (default MaxLine,
	// MaxDepth); Grace is the wait at the end of input (default EOFGrace).
	MaxLine, MaxDepth int
	Grace             time.Duration

	gone     chan struct{}
	goneOnce sync.Once
}

// Stdio returns the transport reading r and writing w.
func Stdio(r io.Reader, w io.Writer) *StdioTransport {
	return &StdioTransport{r: r, w: w, gone: make(chan struct{})}
}

// Gone is closed when the client's input has ended: nobody is left to
// hear an answer that is still being waited for.
func (t *StdioTransport) Gone() <-chan struct{} { return t.gone }

// Connect implements mcp.Transport; it is called once.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{t: t, frames: make(chan rawFrame), closed: make(chan struct{}), changed: make(chan struct{}, 1),
		inflight: map[jsonrpc.ID]*batch{}, cancelled: map[jsonrpc.ID]bool{}, initIDs: map[jsonrpc.ID]bool{}}
	c.limit, c.maxDepth, c.grace = t.MaxLine, t.MaxDepth, t.Grace
	if c.limit <= 0 {
		c.limit = MaxLine
	}
	if c.maxDepth <= 0 {
		c.maxDepth = MaxDepth
	}
	if c.grace <= 0 {
		c.grace = EOFGrace
	}
	go c.readLoop()
	return c, nil
}

// batch is one inbound batch's answers, sent as one array once every
// call in it is answered.
type batch struct {
	pending int
	out     []*jsonrpc.Response
}

type stdioConn struct {
	t               *StdioTransport
	limit, maxDepth int
	grace           time.Duration
	frames          chan rawFrame
	closed          chan struct{}
	closeOnce       sync.Once
	queue           []jsonrpc.Message // read by the SDK's one reader only
	wmu             sync.Mutex        // one line at a time on w
	changed         chan struct{}     // a call in flight was answered
	mu              sync.Mutex        // guards what follows
	inflight        map[jsonrpc.ID]*batch
	cancelled       map[jsonrpc.ID]bool
	initIDs         map[jsonrpc.ID]bool
	protocolVersion string
}

// readLoop reads lines into frames until the input ends. Reading stdin
// cannot be interrupted portably, so a Close leaves this goroutine parked
// in Read; the process is about to exit then.
func (c *stdioConn) readLoop() {
	br := bufio.NewReaderSize(c.t.r, 64<<10)
	for {
		f := readFrame(br, c.limit)
		select {
		case c.frames <- f:
		case <-c.closed:
			return
		}
		if f.err != nil {
			return
		}
	}
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// Read returns the next valid message. Malformed lines are answered here
// and never reach the SDK.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		}
		var f rawFrame
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case f = <-c.frames:
		}
		if f.err != nil {
			c.endOfInput()
			return nil, f.err
		}
		c.mu.Lock()
		version := c.protocolVersion
		c.mu.Unlock()
		msgs, err := c.accept(parseFrame(f, c.limit, c.maxDepth, version))
		if err != nil {
			return nil, err
		}
		c.queue = msgs
	}
}

// accept records the calls of one frame as in flight and answers what it
// refuses: malformed messages, and a call whose id is already in flight
// (its answer could not be told from the first one's).
func (c *stdioConn) accept(fr frame) ([]jsonrpc.Message, error) {
	var b *batch
	if fr.batch {
		b = &batch{}
	}
	var refused []*jsonrpc.Response
	for _, e := range fr.errs {
		refused = append(refused, e.response())
	}
	var out []jsonrpc.Message
	c.mu.Lock()
	for _, m := range fr.msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			if ok && req.Method == "notifications/cancelled" {
				c.noteCancel(req.Params)
			}
			out = append(out, m)
			continue
		}
		if _, dup := c.inflight[req.ID]; dup {
			refused = append(refused, invalidRequest(jsonrpc.ID{}, "id %s is already used by a call in flight",
				clip([]byte(fmt.Sprint(req.ID.Raw())))).response())
			continue
		}
		c.inflight[req.ID] = b
		if b != nil {
			b.pending++
		}
		if req.Method == "initialize" {
			// The version asked for until the answer says which was
			// agreed: the client may send its next lines (a batch)
			// before the answer is written.
			c.initIDs[req.ID] = true
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				c.protocolVersion = p.ProtocolVersion
			}
		}
		out = append(out, m)
	}
	var flush []*jsonrpc.Response
	if b != nil {
		b.out = refused
		if b.pending == 0 {
			flush = b.out
		}
	} else {
		flush = refused
	}
	c.mu.Unlock()
	if len(flush) == 0 {
		return out, nil
	}
	if b != nil {
		return out, c.writeBatch(flush)
	}
	for _, r := range flush {
		if err := c.writeMsg(r); err != nil {
			return out, err
		}
	}
	return out, nil
}

// noteCancel marks the call a notifications/cancelled names: its answer
// is dropped (the spec: the receiver should not respond to a cancelled
// request). The SDK cancels the call's context. Called with c.mu held.
func (c *stdioConn) noteCancel(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if id, _, ok := idOf(p.RequestID); ok && id.IsValid() {
		if _, live := c.inflight[id]; live {
			c.cancelled[id] = true
		}
	}
}

// endOfInput tells blocking waits that the client is gone and waits for
// the calls in flight to be answered while they keep being answered: it
// returns once none is left, or when none was answered for the grace.
func (c *stdioConn) endOfInput() {
	c.t.goneOnce.Do(func() { close(c.t.gone) })
	timer := time.NewTimer(c.grace)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n := len(c.inflight)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.changed:
			// A call was answered: the rest get the grace again, so a
			// burst of calls queued on one lock is answered in full, and
			// only calls that stop moving are cut.
			timer.Reset(c.grace)
		case <-timer.C:
			return
		case <-c.closed:
			return
		}
	}
}

// Write sends one message. A response retires its call: dropped when the
// client cancelled the call, held for its batch's array, and read for the
// negotiated protocol version when it answers initialize.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.writeMsg(msg)
	}
	resp = withCode(resp)
	c.mu.Lock()
	b, tracked := c.inflight[resp.ID]
	drop := c.cancelled[resp.ID]
	if tracked {
		delete(c.inflight, resp.ID)
		delete(c.cancelled, resp.ID)
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
	if c.initIDs[resp.ID] {
		delete(c.initIDs, resp.ID)
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if resp.Error == nil && json.Unmarshal(resp.Result, &r) == nil {
			c.protocolVersion = r.ProtocolVersion
		}
	}
	var flush []*jsonrpc.Response
	if b != nil {
		if !drop {
			b.out = append(b.out, resp)
		}
		b.pending--
		if b.pending == 0 {
			flush = b.out
		}
	}
	c.mu.Unlock()
	switch {
	case b != nil && len(flush) > 0:
		return c.writeBatch(flush)
	case b != nil || drop:
		return nil
	}
	return c.writeMsg(resp)
}

// withCode gives an error the SDK sends without a JSON-RPC code (code 0:
// "invalid during session initialization", a duplicate initialize, a
// failure inside the server) the one the spec names.
func withCode(resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error == nil {
		return resp
	}
	var we *jsonrpc.Error
	if errors.As(resp.Error, &we) && we.Code != 0 {
		return resp
	}
	code := int64(jsonrpc.CodeInternalError)
	msg := resp.Error.Error()
	if strings.Contains(msg, "initializ") {
		code = jsonrpc.CodeInvalidRequest // a call the session's state does not allow
	}
	out := *resp
	out.Error = &jsonrpc.Error{Code: code, Message: msg}
	return &out
}

func (c *stdioConn) writeMsg(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode a JSON-RPC message: %w", err)
	}
	return c.writeLine(data)
}

func (c *stdioConn) writeBatch(rs []*jsonrpc.Response) error {
	raws := make([]json.RawMessage, 0, len(rs))
	for _, r := range rs {
		data, err := jsonrpc.EncodeMessage(r)
		if err != nil {
			return fmt.Errorf("encode a JSON-RPC message: %w", err)
		}
		raws = append(raws, data)
	}
	data, err := json.Marshal(raws)
	if err != nil {
		return fmt.Errorf("encode a JSON-RPC batch: %w", err)
	}
	return c.writeLine(data)
}

func (c *stdioConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.t.w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write to the client: %w", err)
	}
	return nil
}
