package jsonfile

import (
	"bytes"
	"encoding/json"
)

// scanner walks JSON bytes by hand for SplitObject and the indenter
// (indent.go): it checks syntax with byte offsets, and skips the strings
// and literals of a part already known to be valid.
type scanner struct {
	data []byte
	pos  int
	// valid: data is known to be valid JSON (a part of a document already
	// scanned); strings and literals are skipped, not checked.
	valid bool
}

func (s *scanner) errf(msg string) error {
	if s.pos >= len(s.data) {
		return &ObjectError{Offset: int64(s.pos), Msg: "unexpected end of JSON input"}
	}
	return &ObjectError{Offset: int64(s.pos), Msg: msg}
}

func (s *scanner) end() error {
	s.ws()
	if s.pos != len(s.data) {
		return s.errf("trailing data after object")
	}
	return nil
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// maxDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxDepth = 512

func (s *scanner) value(depth int) error {
	if depth > maxDepth {
		return s.errf("nesting too deep")
	}
	if s.pos >= len(s.data) {
		return s.errf("expected value")
	}
	switch s.data[s.pos] {
	case '"':
		return s.str()
	case '{':
		return s.list('}', true, depth)
	case '[':
		return s.list(']', false, depth)
	default:
		return s.literal()
	}
}

// list skips an object (keyed) or an array whose opening bracket is at
// s.pos, up to its closing bracket end.
func (s *scanner) list(end byte, keyed bool, depth int) error {
	s.pos++
	s.ws()
	if s.eat(end) {
		return nil
	}
	for {
		s.ws()
		if keyed {
			if err := s.key(); err != nil {
				return err
			}
		}
		if err := s.value(depth + 1); err != nil {
			return err
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat(end) {
			return nil
		}
		return s.errf("expected ',' or '" + string(end) + "'")
	}
}

// key skips an object's key and its colon, and the space after them.
func (s *scanner) key() error {
	if err := s.str(); err != nil {
		return err
	}
	s.ws()
	if !s.eat(':') {
		return s.errf("expected ':'")
	}
	s.ws()
	return nil
}

// literal skips a number, true, false or null.
func (s *scanner) literal() error {
	start := s.pos
	for s.pos < len(s.data) && !isDelimiter(s.data[s.pos]) {
		s.pos++
	}
	lit := s.data[start:s.pos]
	if len(lit) == 0 || (!s.valid && !json.Valid(lit)) {
		s.pos = start
		return s.errf("invalid literal")
	}
	return nil
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func (s *scanner) str() error {
	if !s.eat('"') {
		return s.errf("expected string")
	}
	if s.valid {
		return s.skipValidString()
	}
	for s.pos < len(s.data) {
		// The plain bytes of a string are most of a file (observation
		// texts): skip them with one table load each.
		data, i := s.data, s.pos
		for i < len(data) && !stringStop[data[i]] {
			i++
		}
		s.pos = i
		if i == len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			s.pos++
			return nil
		case c == '\\':
			if s.pos+1 >= len(s.data) {
				s.pos = len(s.data)
				return s.errf("unterminated string")
			}
			switch s.data[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if s.pos+6 > len(s.data) {
					s.pos = len(s.data)
					return s.errf("unterminated string")
				}
				for _, h := range s.data[s.pos+2 : s.pos+6] {
					if !isHex(h) {
						return s.errf("invalid \\u escape")
					}
				}
				s.pos += 6
			default:
				return s.errf("invalid escape")
			}
		case c < 0x20:
			return s.errf("control character in string")
		default:
			s.pos++
		}
	}
	return s.errf("unterminated string")
}

// skipValidString moves past the closing quote of a string known to be
// valid: the first quote not escaped by an odd run of backslashes.
// bytes.IndexByte is a vector search, where checking each byte was most of
// the cost of decoding a ledger, more so in a race-built binary.
func (s *scanner) skipValidString() error {
	start := s.pos
	for i := start; ; {
		j := bytes.IndexByte(s.data[i:], '"')
		if j < 0 {
			s.pos = len(s.data)
			return s.errf("unterminated string")
		}
		i += j
		n := 0
		for k := i - 1; k >= start && s.data[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			s.pos = i
			return nil
		}
	}
}

// stringStop marks the bytes a JSON string does not hold as they are:
// the quote, the backslash and control characters. A literal, laid out at
// build time (a table computed by a function is initialiser work at every
// process start).
var stringStop = [256]bool{
	0x00: true, 0x01: true, 0x02: true, 0x03: true, 0x04: true, 0x05: true, 0x06: true, 0x07: true,
	0x08: true, 0x09: true, 0x0a: true, 0x0b: true, 0x0c: true, 0x0d: true, 0x0e: true, 0x0f: true,
	0x10: true, 0x11: true, 0x12: true, 0x13: true, 0x14: true, 0x15: true, 0x16: true, 0x17: true,
	0x18: true, 0x19: true, 0x1a: true, 0x1b: true, 0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true,
	'"': true, '\\': true,
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
