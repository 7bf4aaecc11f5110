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
