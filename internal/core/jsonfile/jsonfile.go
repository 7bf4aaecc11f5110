// Package jsonfile owns the JSON format of state files: the reference
// layout (2-space indent, trailing newline, no HTML escaping, as
// JSON.stringify writes), corrupt-file detection that names the file and
// byte offset, the ordered object split that lets every type keep keys
// written by other tools, and the value primitives the hand-written codecs
// share. How the bytes reach the disk is package atomicfile's.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// Marshal renders v as the reference implementation lays files out.
func Marshal(v any) ([]byte, error) {
	if a, ok := v.(IndentAppender); ok && !isNilPointer(v) {
		out, err := a.AppendIndentedJSON(nil)
		if err != nil {
			return nil, err
		}
		return append(out, '\n'), nil
	}
	if m, ok := v.(json.Marshaler); ok {
		if out, done, err := marshalIndented(m); done {
			return out, err
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes data into v and turns any syntax or type error into
// CORRUPT_STATE naming the file and the byte offset. A file that does not
// parse is never treated as empty: the reference implementation did that and
// lost whole ledgers on the next write.
func Unmarshal(path string, data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return Corrupt(path, 0, errors.New("file is empty"))
	}
	if err := json.Unmarshal(data, v); err != nil {
		return Corrupt(path, OffsetOf(err), err)
	}
	return nil
}

// Corrupt returns the CORRUPT_STATE error for path.
func Corrupt(path string, offset int64, cause error) *errcode.Error {
	e := errcode.Wrap(errcode.CorruptState, cause, "%s is not valid (at byte %d)", path, offset)
	e.Hint = "the file was left untouched; repair or move it aside, then retry"
	return e
}

// CorruptOffset is the most useful byte offset of a decoding error of
// data, for Corrupt: the standard decoder's when data is not JSON at all,
// else the one err carries (JSON of the wrong shape), else 0.
func CorruptOffset(data []byte, err error) int64 {
	var v any
	if jerr := json.Unmarshal(data, &v); jerr != nil {
		if off := OffsetOf(jerr); off >= 0 {
			return off
		}
	}
	return max(OffsetOf(err), 0)
}

// OffsetOf extracts a byte offset from a decoding error, or -1.
func OffsetOf(err error) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Offset
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Offset
	}
	var oe *ObjectError
	if errors.As(err, &oe) {
		return oe.Offset
	}
	return -1
}

// Field is one key of a JSON object with its raw value.
type Field struct {
	Key   string
	Value json.RawMessage
}

// ObjectError reports where an object failed to split.
type ObjectError struct {
	Offset int64
	Msg    string
}

func (e *ObjectError) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

// SplitObject splits the JSON object in data into its fields, in order,
// without decoding the values. It is the first half of decoding a type that
// must keep unknown keys: known keys are decoded from their raw values, the
// rest are kept verbatim for the rewrite. Raw values alias data.
func SplitObject(data []byte) ([]Field, error) {
	return splitObject(scanner{data: data})
}

// SplitValidObject is SplitObject for data already checked: a value inside
// what SplitObject or EachElement accepted. Strings are skipped by looking
// for their closing quote instead of checking every byte, so decoding a
// nested document checks each byte once, not once per level. On data that
// was not checked it may accept what is not JSON.
func SplitValidObject(data []byte) ([]Field, error) {
	return splitObject(scanner{data: data, valid: true})
}

func splitObject(s scanner) ([]Field, error) {
	fields := make([]Field, 0, 16)
	err := s.object(func(k rawKey, v []byte) error {
		fields = append(fields, Field{Key: k.String(), Value: v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fields, nil
}

// rawKey is an object key as it stands in the file. key is its unquoted
// form, set only when the raw form has escapes or bytes beyond printable
// ASCII; otherwise it is the bytes between the quotes, read without an
// allocation.
type rawKey struct {
	raw []byte // with its quotes
	key string // unquoted when needed, else ""
}

// String is the key unquoted.
func (k rawKey) String() string {
	if k.key != "" || len(k.raw) == 2 {
		return k.key
	}
	return string(k.raw[1 : len(k.raw)-1])
}

// is reports whether the key is name, without allocating.
func (k rawKey) is(name string) bool {
	if k.key != "" || len(k.raw) == 2 {
		return k.key == name
	}
	return string(k.raw[1:len(k.raw)-1]) == name
}

// object scans the object at s.pos to its end (and the end of the data),
// calling field with each key and raw value, in order. Nothing is called
// unless the whole object scans: a syntax error anywhere is reported
// before any field is decoded, as when the fields were split first.
func (s *scanner) object(field func(k rawKey, v []byte) error) error {
	type kv struct {
		k rawKey
		v []byte
	}
	var buf [24]kv // the fields of nearly every object, on the stack
	fields := buf[:0]
	data := s.data
	s.ws()
	if !s.eat('{') {
		return s.errf("expected '{'")
	}
	s.ws()
	if !s.eat('}') {
		for {
			s.ws()
			kstart := s.pos
			if err := s.str(); err != nil {
				return err
			}
			k := rawKey{raw: data[kstart:s.pos]}
			if !plainASCII(k.raw[1 : len(k.raw)-1]) {
				key, err := unquote(k.raw)
				if err != nil {
					return &ObjectError{Offset: int64(kstart), Msg: "invalid key"}
				}
				k.key = key
			}
			s.ws()
			if !s.eat(':') {
				return s.errf("expected ':'")
			}
			s.ws()
			vstart := s.pos
			if err := s.value(0); err != nil {
				return err
			}
			fields = append(fields, kv{k, data[vstart:s.pos]})
			s.ws()
			if s.eat(',') {
				continue
			}
			if s.eat('}') {
				break
			}
			return s.errf("expected ',' or '}'")
		}
	}
	if err := s.end(); err != nil {
		return err
	}
	for _, f := range fields {
		if err := field(f.k, f.v); err != nil {
			return err
		}
	}
	return nil
}

// JoinObject renders fields as a compact JSON object (the encoder re-indents).
func JoinObject(fields []Field) []byte {
	n := 2
	for _, f := range fields {
		n += len(f.Key) + len(f.Value) + 4
	}
	buf := make([]byte, 0, n)
	buf = append(buf, '{')
	for i, f := range fields {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendKey(buf, f.Key)
		buf = append(buf, ':')
		buf = append(buf, f.Value...)
	}
	return append(buf, '}')
}

// Known reports whether key is in keys.
func Known(key string, keys []string) bool {
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

func unquote(q []byte) (string, error) {
	if plainASCII(q[1 : len(q)-1]) {
		return string(q[1 : len(q)-1]), nil
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// plainASCII reports whether b needs no unescaping: printable ASCII and no
// backslash. Anything else goes through encoding/json, which also turns
// invalid UTF-8 into U+FFFD the same way every time.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

func appendKey(buf []byte, key string) []byte {
	if plainASCII([]byte(key)) && !strings.ContainsRune(key, '"') {
		buf = append(buf, '"')
		buf = append(buf, key...)
		return append(buf, '"')
	}
	k, _ := json.Marshal(key)
	return append(buf, k...)
}

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
		for i < len(data) && plainStringByte[data[i]] {
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

// plainStringByte marks the bytes a JSON string holds as they are: all
// but the quote, the backslash and control characters.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// Explain words a decoding error for the person who wrote the input: the
// JSON field and what it should hold for a wrong type, the byte offset for
// broken syntax (encoding/json names Go types instead).
func Explain(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Sprintf("field %q: want %s, got %s (at byte %d)", field, jsonKind(te.Type), article(te.Value), te.Offset)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return err.Error()
}

// jsonKind names what JSON value a Go type takes.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another value"
}

func article(v string) string {
	switch {
	case v == "":
		return "another value"
	case strings.HasPrefix(v, "number"):
		return "a " + v
	case strings.IndexAny(v[:1], "aeiou") == 0:
		return "an " + v
	}
	return "a " + v
}
