package delivery

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"time"
)

// Payload is what a deliver hook needs of the host's payload: a few
// top-level strings. A PostToolUse payload carries the tool's whole
// output (a file read: tens of kilobytes), which a full JSON decode would
// parse several times over on every tool call; Scan reads the top level
// once and skips the values it does not need.
type Payload struct {
	SessionID string
	Event     string
	Cwd       string
	AgentType string
}

// field maps the keys read (both the snake_case of Claude Code and Codex
// and Copilot CLI's camelCase) to their field.
func (p *Payload) field(key string) *string {
	switch key {
	case "session_id", "sessionId":
		return &p.SessionID
	case "hook_event_name", "hookEventName":
		return &p.Event
	case "cwd":
		return &p.Cwd
	case "agent_type":
		return &p.AgentType
	}
	return nil
}

var errNotObject = errors.New("payload is not a JSON object")

// Scan reads data's top-level object: the strings Payload wants, and
// whether the object is complete (its closing brace seen). Incomplete
// data is no error: more may come.
func Scan(data []byte) (p Payload, complete bool, err error) {
	i := skipSpace(data, 0)
	if i < len(data) && data[i] == 0xEF { // a byte-order mark
		i = skipSpace(data, i+3)
	}
	if i >= len(data) {
		return p, false, nil
	}
	if data[i] != '{' {
		return p, false, errNotObject
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return p, false, nil
		}
		if data[i] == '}' {
			return p, true, nil
		}
		if data[i] == ',' {
			i++
			continue
		}
		key, vstart, ok, err := member(data, i)
		if err != nil || !ok {
			return p, false, err
		}
		i = vstart
		vend, ok := valueEnd(data, i)
		if !ok {
			return p, false, nil
		}
		if f := p.field(key); f != nil && data[i] == '"' {
			if err := json.Unmarshal(data[i:vend], f); err != nil {
				return p, false, err
			}
		}
		i = vend
	}
}

// member reads an object member's key at data[i] and the colon after it:
// the key and where its value starts (ok false: the data ends first).
func member(data []byte, i int) (key string, value int, ok bool, err error) {
	if data[i] != '"' {
		return "", 0, false, errNotObject
	}
	end, ok := stringEnd(data, i)
	if !ok {
		return "", 0, false, nil
	}
	if err := json.Unmarshal(data[i:end], &key); err != nil {
		return "", 0, false, err
	}
	i = skipSpace(data, end)
	if i >= len(data) {
		return "", 0, false, nil
	}
	if data[i] != ':' {
		return "", 0, false, errNotObject
	}
	i = skipSpace(data, i+1)
	if i >= len(data) {
		return "", 0, false, nil
	}
	return key, i, true, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the string starting at data[i] (a quote).
func stringEnd(data []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, false
		}
		q := j + k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		bs := 0
		for b := q - 1; b > i && data[b] == '\\'; b-- {
			bs++
		}
		if bs%2 == 0 {
			return q + 1, true
		}
		j = q + 1
	}
}

// valueEnd is the index after the value starting at data[i]: a string,
// an object or array (nesting counted, strings inside skipped), or a
// literal or number.
func valueEnd(data []byte, i int) (int, bool) {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, ok := stringEnd(data, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	for j := i; j < len(data); j++ {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j, true
		}
	}
	return 0, false
}

// maxPayload bounds what a deliver hook reads of its stdin.
const maxPayload = 16 << 20

// ReadPayload reads a host's payload from r: until EOF, or as soon as one
// whole object arrived (a host may keep stdin open), waiting at most wait
// in all. A terminal is never read.
func ReadPayload(r io.Reader, wait time.Duration) Payload {
	if r == nil {
		return Payload{}
	}
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return Payload{}
		}
	}
	type chunk struct{ b []byte }
	chunks := make(chan chunk, 16)
	go func() {
		buf := make([]byte, 64<<10)
		total := 0
		for total < maxPayload {
			n, err := r.Read(buf)
			if n > 0 {
				chunks <- chunk{b: append([]byte(nil), buf[:n]...)}
				total += n
			}
			if err != nil {
				break
			}
		}
		close(chunks)
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var data []byte
	for {
		select {
		case c, ok := <-chunks:
			if ok {
				data = append(data, c.b...)
				// Only a chunk ending in a brace can end the object.
				if end := lastNonSpace(data); end < 0 || data[end] != '}' {
					continue
				}
			}
			p, complete, _ := Scan(data)
			if complete || !ok {
				return p
			}
		case <-timer.C:
			p, _, _ := Scan(data)
			return p
		}
	}
}

func lastNonSpace(data []byte) int {
	i := len(data) - 1
	for i >= 0 && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i--
	}
	return i
}
