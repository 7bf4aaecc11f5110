package jsonfile

import (
	"encoding/json"
	"reflect"
)

// marshalIndented is Marshal for a value that writes its own JSON (the
// hand-written codecs of the ledger, observations and agent status): the
// bytes it gives are checked and laid out in one pass of our scanner.
// encoding/json would check them with its scanner, copy them compacted,
// then indent the copy in a second pass; for a ledger of a few hundred
// records that was a quarter of every clarify command. The layout is
// encoding/json's Indent(dst, src, "", "  ") with a trailing newline,
// byte for byte (FuzzIndentMatchesEncodingJSON).
func marshalIndented(m json.Marshaler) ([]byte, bool, error) {
	if isNilPointer(m) {
		return nil, false, nil // encoding/json writes null for it
	}
	raw, err := m.MarshalJSON()
	if err != nil {
		return nil, true, err
	}
	out, err := indent(make([]byte, 0, len(raw)+len(raw)/2+1), raw)
	if err != nil {
		return nil, true, err
	}
	return append(out, '\n'), true, nil
}

// indent appends the single JSON value in src to dst, two spaces per level,
// whitespace outside strings dropped, and fails as our scanner does on
// anything that is not one valid JSON value.
func indent(dst, src []byte) ([]byte, error) { return AppendIndented(dst, src, 0) }

func (s *scanner) indentValue(dst []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, s.errf("nesting too deep")
	}
	if s.pos >= len(s.data) {
		return nil, s.errf("expected value")
	}
	start := s.pos
	var err error
	switch s.data[s.pos] {
	case '{':
		return s.indentList(dst, '}', true, depth)
	case '[':
		return s.indentList(dst, ']', false, depth)
	case '"':
		err = s.str()
	default:
		err = s.literal()
	}
	if err != nil {
		return nil, err
	}
	return append(dst, s.data[start:s.pos]...), nil
}

func (s *scanner) indentList(dst []byte, end byte, keyed bool, depth int) ([]byte, error) {
	dst = append(dst, s.data[s.pos])
	s.pos++
	s.ws()
	if s.eat(end) {
		return append(dst, end), nil
	}
	for {
		dst = newline(dst, depth+1)
		s.ws()
		if keyed {
			start := s.pos
			if err := s.str(); err != nil {
				return nil, err
			}
			dst = append(dst, s.data[start:s.pos]...)
			s.ws()
			if !s.eat(':') {
				return nil, s.errf("expected ':'")
			}
			s.ws()
			dst = append(dst, ':', ' ')
		}
		var err error
		if dst, err = s.indentValue(dst, depth+1); err != nil {
			return nil, err
		}
		s.ws()
		if s.eat(',') {
			dst = append(dst, ',')
			continue
		}
		if s.eat(end) {
			return append(newline(dst, depth), end), nil
		}
		return nil, s.errf("expected ',' or '" + string(end) + "'")
	}
}

func newline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for i := 0; i < depth; i++ {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// IndentAppender is a value that lays itself out as Marshal would lay out
// its MarshalJSON (encoding/json's Indent with two spaces, no trailing
// newline), straight into dst: the ledger, rewritten whole by every
// clarify command, then costs one buffer and one pass instead of a
// compact copy, a scan of it and the indented copy.
type IndentAppender interface {
	AppendIndentedJSON(dst []byte) ([]byte, error)
}

// AppendIndented appends the single JSON value in raw laid out as it
// would be at depth levels of nesting (a kept unknown key's value inside
// an IndentAppender's output), and fails as Marshal does on anything
// that is not one valid JSON value.
func AppendIndented(dst, raw []byte, depth int) ([]byte, error) {
	s := scanner{data: raw}
	s.ws()
	dst, err := s.indentValue(dst, depth)
	if err != nil {
		return nil, err
	}
	s.ws()
	if s.pos != len(s.data) {
		return nil, s.errf("trailing data after value")
	}
	return dst, nil
}

// Newline appends a line break and the indentation of depth.
func Newline(dst []byte, depth int) []byte { return newline(dst, depth) }
