package hostsettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A host's settings file is someone else's file: `setup` changes only the
// hook entries it owns and writes every other key back in the order and
// with the exact numbers it found. encoding/json's maps would sort the
// keys (a noisy diff in a file people read) and escape "&&" in commands,
// so these few functions keep a JSON object's key order.

// jsonObject is a JSON object whose keys keep their order.
type jsonObject struct {
	keys []string
	vals map[string]any
}

func newJSONObject() *jsonObject { return &jsonObject{vals: map[string]any{}} }

func (o *jsonObject) get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// set replaces key's value in place, or appends the key.
func (o *jsonObject) set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// decodeOrdered decodes one JSON document into *jsonObject, []any,
// json.Number, string, bool and nil.
//
// A host's settings file is edited only when it is unambiguous JSON: not
// valid UTF-8 (the decoder would write U+FFFD over the user's bytes), a
// key twice in one object (one of the user's blocks would be dropped), or
// nesting past maxSettingsDepth (a 20,000-deep file took 19 s and 6.3 GB)
// is an error, and the file is left untouched.
func decodeOrdered(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// maxSettingsDepth bounds how deeply a settings file may nest: real ones
// nest four or five levels.
const maxSettingsDepth = 64

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxSettingsDepth {
			return nil, fmt.Errorf("nests deeper than %d levels", maxSettingsDepth)
		}
		switch t {
		case '{':
			obj := newJSONObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				if _, dup := obj.get(key); dup {
					return nil, fmt.Errorf("the key %q appears twice in one object", key)
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj.set(key, v)
			}
			_, err := dec.Token() // '}'
			return obj, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// encodeOrdered writes v indented by two spaces, keys in their order, no
// HTML escaping, with a final newline.
func encodeOrdered(v any) []byte {
	var b bytes.Buffer
	writeOrdered(&b, v, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeOrdered(b *bytes.Buffer, v any, depth int) {
	indent := func(d int) { b.WriteString("\n" + strings.Repeat("  ", d)) }
	switch t := v.(type) {
	case *jsonObject:
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			writeScalar(b, k)
			b.WriteString(": ")
			writeOrdered(b, t.vals[k], depth+1)
		}
		indent(depth)
		b.WriteByte('}')
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			writeOrdered(b, e, depth+1)
		}
		indent(depth)
		b.WriteByte(']')
	default:
		writeScalar(b, t)
	}
}

func writeScalar(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)       // strings, json.Number, bool, nil, ints: cannot fail
	b.Truncate(b.Len() - 1) // Encode's newline
}

// equalJSON compares two decoded values; object key order does not count.
func equalJSON(x, y any) bool {
	switch a := x.(type) {
	case *jsonObject:
		b, ok := y.(*jsonObject)
		if !ok || len(a.keys) != len(b.keys) {
			return false
		}
		for _, k := range a.keys {
			bv, ok := b.vals[k]
			if !ok || !equalJSON(a.vals[k], bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := y.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := y.(json.Number)
		return ok && a == b
	default:
		return x == y
	}
}

// del removes key, keeping the order of the others.
func (o *jsonObject) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			return
		}
	}
}
