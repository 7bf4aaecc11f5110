package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Bounds of one inbound frame. A line longer than MaxLine bytes or nested
// deeper than MaxDepth is refused with a JSON-RPC error and the session
// goes on. The largest argument any tool takes is 20 observation ids or a
// 2,000-character body, far below either.
const (
	MaxLine  = 1 << 20
	MaxDepth = 64
)

// protocolNoBatches is the first protocol version without JSON-RPC
// batches (the spec removed them in 2025-06-18).
const protocolNoBatches = "2025-06-18"

// rawFrame is one line of input as read: its bytes (at most the limit),
// its length in full, or the read error that ended the input.
type rawFrame struct {
	line []byte
	size int64
	err  error
}

// readFrame reads one line of br, keeping at most limit bytes of it. A
// longer line is read to its end and dropped (size says how long it was),
// so a 100 MB line costs limit bytes of memory, not 100 MB. The last line
// of the input needs no newline.
func readFrame(br *bufio.Reader, limit int) rawFrame {
	var f rawFrame
	for {
		chunk, err := br.ReadSlice('\n')
		f.size += int64(len(chunk))
		if room := limit + 1 - len(f.line); room > 0 {
			f.line = append(f.line, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (f.size > 0 && errors.Is(err, io.EOF)) {
			return f // the last line, without its newline
		}
		if err != nil {
			return rawFrame{err: err}
		}
		f.line = bytes.TrimSuffix(f.line, []byte("\n"))
		f.size--
		if bytes.HasSuffix(f.line, []byte("\r")) {
			f.line = f.line[:len(f.line)-1]
			f.size--
		}
		return f
	}
}

// frameError is a malformed frame's answer: the JSON-RPC code the spec
// names, and the id when the frame's id could be read.
type frameError struct {
	id   jsonrpc.ID
	code int64
	msg  string
}

func (e *frameError) response() *jsonrpc.Response {
	return &jsonrpc.Response{ID: e.id, Error: &jsonrpc.Error{Code: e.code, Message: e.msg}}
}

func parseError(format string, args ...any) *frameError {
	return &frameError{code: jsonrpc.CodeParseError, msg: "parse error: " + fmt.Sprintf(format, args...)}
}

func invalidRequest(id jsonrpc.ID, format string, args ...any) *frameError {
	return &frameError{id: id, code: jsonrpc.CodeInvalidRequest, msg: "invalid request: " + fmt.Sprintf(format, args...)}
}

// depth is how deeply the JSON text in b nests arrays and objects, counted
// without decoding (so 200,000 opening brackets cost one pass, not a
// recursion); it stops counting past limit.
func depth(b []byte, limit int) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			if d > deepest {
				deepest = d
				if deepest > limit {
					return deepest
				}
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// firstNonSpace is the first byte of b that is not JSON whitespace.
func firstNonSpace(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}

// wireMessage is a message object's fields as sent, undecoded.
type wireMessage struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// idOf reads a message's id: a string or an integer. ok is false for any
// other value (null, a fraction, an object); present says the key was there.
func idOf(raw json.RawMessage) (id jsonrpc.ID, present, ok bool) {
	if len(raw) == 0 {
		return jsonrpc.ID{}, false, true
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return jsonrpc.ID{}, true, false
	}
	switch v := v.(type) {
	case string:
		id, err := jsonrpc.MakeID(v)
		return id, true, err == nil
	case json.Number:
		n, err := v.Int64()
		if err != nil || n > 1<<53 || n < -(1<<53) {
			return jsonrpc.ID{}, true, false
		}
		id, err := jsonrpc.MakeID(float64(n))
		return id, true, err == nil
	}
	return jsonrpc.ID{}, true, false
}

// message checks one JSON-RPC message object (raw is valid JSON) and
// decodes it, or says which rule it breaks.
func message(raw []byte) (jsonrpc.Message, *frameError) {
	if firstNonSpace(raw) != '{' {
		return nil, invalidRequest(jsonrpc.ID{}, "a message is a JSON object")
	}
	var w wireMessage
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, invalidRequest(jsonrpc.ID{}, "%v", err)
	}
	id, hasID, idOK := idOf(w.ID)
	if !idOK {
		return nil, invalidRequest(jsonrpc.ID{}, "id must be a string or an integer, got %s", clip(w.ID))
	}
	var version string
	if json.Unmarshal(w.JSONRPC, &version) != nil || version != "2.0" {
		return nil, invalidRequest(id, `"jsonrpc" must be "2.0", got %s`, clip(w.JSONRPC))
	}
	if len(w.Method) > 0 {
		var method string
		if json.Unmarshal(w.Method, &method) != nil {
			return nil, invalidRequest(id, `"method" must be a string, got %s`, clip(w.Method))
		}
		if method == "" {
			return nil, invalidRequest(id, `"method" is empty`)
		}
		if c := firstNonSpace(w.Params); len(w.Params) > 0 && c != '{' && c != '[' && string(w.Params) != "null" {
			return nil, invalidRequest(id, `"params" must be an object, got %s`, clip(w.Params))
		}
	} else {
		if !hasID {
			return nil, invalidRequest(id, `a request needs "method"`)
		}
		if len(w.Result) == 0 && len(w.Error) == 0 {
			return nil, invalidRequest(id, `a message with an id needs "method" (a request) or "result" or "error" (a response)`)
		}
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, invalidRequest(id, "%v", err)
	}
	return msg, nil
}

// clip is a value from a bad frame, short enough to quote in its error.
func clip(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// prefixID finds the top-level "id" of a line cut at the limit, so the
// client waiting on the refused request hears which one it was. It gives
// up (the zero ID) when the prefix ends before an id appears.
func prefixID(prefix []byte) jsonrpc.ID {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return jsonrpc.ID{}
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return jsonrpc.ID{}
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return jsonrpc.ID{}
		}
		if key == "id" {
			if id, _, ok := idOf(val); ok {
				return id
			}
			return jsonrpc.ID{}
		}
	}
	return jsonrpc.ID{}
}

// frame is one line's messages, or the errors that answer it. batch says
// the line was a JSON array (whose answers go back as one array).
type frame struct {
	msgs  []jsonrpc.Message
	errs  []*frameError
	batch bool
}

// parseFrame checks one line against the limits and the JSON-RPC rules.
// version is the negotiated protocol version ("" before initialize).
func parseFrame(f rawFrame, limit, maxDepth int, version string) frame {
	if f.size > int64(limit) {
		return frame{errs: []*frameError{invalidRequest(prefixID(f.line),
			"the message is %d bytes, more than the limit of %d (one line of JSON)", f.size, limit)}}
	}
	if len(bytes.TrimSpace(f.line)) == 0 {
		return frame{} // a blank line: nothing to answer
	}
	if d := depth(f.line, maxDepth); d > maxDepth {
		return frame{errs: []*frameError{invalidRequest(jsonrpc.ID{}, "JSON nested more than %d levels deep", maxDepth)}}
	}
	if !json.Valid(f.line) {
		var err error
		var v any
		if err = json.Unmarshal(f.line, &v); err == nil {
			err = errors.New("not JSON")
		}
		return frame{errs: []*frameError{parseError("%v", err)}}
	}
	if firstNonSpace(f.line) != '[' {
		msg, ferr := message(f.line)
		if ferr != nil {
			return frame{errs: []*frameError{ferr}}
		}
		return frame{msgs: []jsonrpc.Message{msg}}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(f.line, &elems); err != nil {
		return frame{errs: []*frameError{parseError("%v", err)}}
	}
	if len(elems) == 0 {
		return frame{errs: []*frameError{invalidRequest(jsonrpc.ID{}, "an empty batch")}}
	}
	if version >= protocolNoBatches {
		return frame{errs: []*frameError{invalidRequest(jsonrpc.ID{},
			"JSON-RPC batches are not part of protocol %s (send one message a line)", version)}}
	}
	out := frame{batch: true}
	for _, e := range elems {
		msg, ferr := message(e)
		if ferr != nil {
			out.errs = append(out.errs, ferr)
			continue
		}
		out.msgs = append(out.msgs, msg)
	}
	return out
}
