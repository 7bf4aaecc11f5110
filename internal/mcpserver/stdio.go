package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the transport over a process's standard input and output
// (newline-delimited JSON-RPC). At the end of input it answers every
// request it has read before it reports the end: a client that writes its
// requests and closes its side at once (a script, `printf ... | agentx-hook
// mcp`) gets every answer, where the SDK alone would drop the calls still
// in flight.
func Stdio(r io.Reader, w io.Writer) mcp.Transport {
	d := &drain{}
	d.cond = sync.NewCond(&d.mu)
	return &mcp.IOTransport{Reader: &drainReader{r: r, tally: tally{d: d, sign: 1}}, Writer: &countWriter{w: w, tally: tally{d: d, sign: -1}}}
}

// drain counts the requests read and not yet answered.
type drain struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending int
}

func (d *drain) add(n int) {
	d.mu.Lock()
	d.pending += n
	d.mu.Unlock()
	d.cond.Broadcast()
}

func (d *drain) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pending
}

// lines calls fn with each complete line of buf and returns the rest.
func lines(buf []byte, fn func([]byte)) []byte {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return buf
		}
		fn(buf[:i])
		buf = buf[i+1:]
	}
}

// kind is what one JSON-RPC line is: +1 a request (a method and an id),
// -1 a response (an id, no method), 0 anything else.
func kind(line []byte) int {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return 0
	}
	if m.Method != "" {
		return 1
	}
	return -1
}

// tally counts one direction's lines of one kind (sign): requests read
// (+1), responses written (-1).
type tally struct {
	d    *drain
	sign int
	part []byte
}

func (t *tally) feed(p []byte) {
	t.part = lines(append(t.part, p...), func(l []byte) {
		if kind(l) == t.sign {
			t.d.add(t.sign)
		}
	})
}

type drainReader struct {
	r io.Reader
	tally
}

func (r *drainReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.feed(p[:n])
	if err == io.EOF && n == 0 {
		// A request the SDK never answers (one the client cancelled)
		// must not keep the process alive: the wait is bounded by the
		// longest a call may take.
		stop := time.AfterFunc(MaxWait+time.Minute, func() { r.d.add(-r.d.count()) })
		defer stop.Stop()
		r.d.mu.Lock()
		for r.d.pending > 0 {
			r.d.cond.Wait()
		}
		r.d.mu.Unlock()
	}
	return n, err
}

func (r *drainReader) Close() error { return nil }

type countWriter struct {
	w io.Writer
	tally
}

func (w *countWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.feed(p[:n])
	return n, err
}

func (w *countWriter) Close() error { return nil }
