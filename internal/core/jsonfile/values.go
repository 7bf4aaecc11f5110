package jsonfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The codecs of the ledger and the memory files decode known keys from the
// raw values SplitObject gives (so unknown keys survive a rewrite in their
// place) and write in JSON.stringify's layout. These are their shared
// primitives: fast paths for the plain values that make up nearly all of a
// file, encoding/json for the rest.

// IsNull reports whether a raw value is JSON null.
func IsNull(v []byte) bool { return string(bytes.TrimSpace(v)) == "null" }

// DecodeString decodes a raw JSON string (null gives "").
func DecodeString(v []byte) (string, error) {
	if IsNull(v) {
		return "", nil
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		inner := v[1 : len(v)-1]
		if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) && !hasControl(inner) {
			return string(inner), nil
		}
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("not a string: %s", clip(v))
	}
	return s, nil
}

// DecodeInt decodes a raw JSON integer (null gives 0; integral floats such
// as 1.0 or 1e2 are accepted, as JavaScript writers produce them).
func DecodeInt(v []byte) (int, error) {
	if IsNull(v) {
		return 0, nil
	}
	if n, err := strconv.Atoi(string(v)); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f != float64(int(f)) {
		return 0, fmt.Errorf("not an integer: %s", clip(v))
	}
	return int(f), nil
}

// DecodeBool decodes a raw JSON boolean (null gives false).
func DecodeBool(v []byte) (bool, error) {
	switch string(bytes.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false", "null":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %s", clip(v))
}

// AppendString appends s as a JSON string without HTML escaping, as
// JSON.stringify writes it.
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s)
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// AppendMarshalString appends s as encoding/json's Marshal writes it (with
// its HTML escapes): the files whose lines json.Marshal wrote (the audit
// trail, the event log, lock files) are written the same by hand-written
// encoders, without the reflection Marshal pays on a type's first use.
// Anything but printable ASCII free of `"`, `\`, `<`, `>` and `&` goes
// through Marshal itself.
func AppendMarshalString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// EachElement calls fn with each raw element of the JSON array v, in one
// validating pass and without copying (null is an empty array).
func EachElement(v []byte, fn func([]byte) error) error {
	return eachElement(scanner{data: v}, fn)
}

// EachValidElement is EachElement for a value already checked (see
// SplitValidObject).
func EachValidElement(v []byte, fn func([]byte) error) error {
	return eachElement(scanner{data: v, valid: true}, fn)
}

func eachElement(s scanner, fn func([]byte) error) error {
	v := s.data
	if IsNull(v) {
		return nil
	}
	s.ws()
	if !s.eat('[') {
		return s.errf("expected an array")
	}
	s.ws()
	if s.eat(']') {
		return s.end()
	}
	for {
		s.ws()
		start := s.pos
		if err := s.value(1); err != nil {
			return err
		}
		if err := fn(v[start:s.pos]); err != nil {
			return err
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat(']') {
			return s.end()
		}
		return s.errf("expected ',' or ']'")
	}
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func clip(v []byte) string {
	if len(v) > 40 {
		return string(v[:40]) + "..."
	}
	return string(v)
}
