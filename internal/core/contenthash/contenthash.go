// Package contenthash owns the one content hash agentx records with what it
// stores (observations, thread entries) and in its audit trail: SHA-256 over
// a canonical JSON form, written "sha256:" followed by 64 lowercase hex
// digits. It imports nothing of the files it hashes; ledger and memory say
// which fields of their values go in.
//
// The canonical form is that of RFC 8785 (JSON Canonicalization Scheme)
// for the values agentx hashes, which hold no floating-point numbers:
//
//   - no whitespace outside strings;
//   - object members sorted by key, comparing keys as UTF-16 code units
//     (for the ASCII keys agentx uses, byte order);
//   - strings in double quotes, escaping only `"` as \", `\` as \\, and the
//     control characters below U+0020 (\b \f \n \r \t in their short
//     form, others as \u00XX with lowercase hex); everything else,
//     including `<`, `>`, `&`, U+2028 and U+2029, is written as UTF-8;
//   - integers in shortest decimal form; true, false and null as is.
//
// So any implementation can recompute a hash from the file with a JSON
// library and a sort: `sha256(canonical({"body":…,"from":…,…}))`.
package contenthash

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Key is the member name, of our own, under which a stored value keeps its
// hash. The old TypeScript and PowerShell tools keep keys they do not know,
// so their rewrites carry it along.
const Key = "agentxHash"

// Prefix starts every hash string.
const Prefix = "sha256:"

// Object collects the members of one JSON object to hash. The zero value
// is an empty object. Hashing 100K observations is on `verify`'s path, so
// values are encoded into one buffer and hashed without a copy when the
// members were added in canonical order (they usually are).
type Object struct {
	buf     []byte // the encoded values, back to back
	members []member
}

type member struct {
	key        string
	start, end int // the value's encoding in buf
}

func (o *Object) add(key string, start int) *Object {
	o.members = append(o.members, member{key: key, start: start, end: len(o.buf)})
	return o
}

// Grow makes room for n more bytes of encoded values.
func (o *Object) Grow(n int) *Object {
	o.buf = slices.Grow(o.buf, n)
	return o
}

// String adds a string member.
func (o *Object) String(key, v string) *Object {
	start := len(o.buf)
	o.buf = appendString(o.buf, v)
	return o.add(key, start)
}

// Int adds an integer member.
func (o *Object) Int(key string, v int) *Object {
	start := len(o.buf)
	o.buf = strconv.AppendInt(o.buf, int64(v), 10)
	return o.add(key, start)
}

// Bool adds a boolean member.
func (o *Object) Bool(key string, v bool) *Object {
	start := len(o.buf)
	o.buf = strconv.AppendBool(o.buf, v)
	return o.add(key, start)
}

// Raw adds a member holding a JSON value as read, in its canonical form
// (as it is when it has none: a non-integer number).
func (o *Object) Raw(key string, v []byte) *Object {
	start := len(o.buf)
	if isDigits(v) { // an integer as written is its canonical form
		o.buf = append(o.buf, v...)
		return o.add(key, start)
	}
	if c, err := CanonicalJSON(v); err == nil {
		o.buf = append(o.buf, c...)
	} else {
		o.buf = append(o.buf, bytes.TrimSpace(v)...)
	}
	return o.add(key, start)
}

// Value adds a member whose value is already in canonical form (an
// object's Canonical, an array of such): it is written as it is.
func (o *Object) Value(key string, canonical []byte) *Object {
	start := len(o.buf)
	o.buf = append(o.buf, canonical...)
	return o.add(key, start)
}

// isDigits reports whether v is a non-negative integer without leading
// zeros.
func isDigits(v []byte) bool {
	if len(v) == 0 || len(v) > 1 && v[0] == '0' {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sorted returns the members in canonical order.
func (o *Object) sorted() []member {
	if slices.IsSortedFunc(o.members, func(a, b member) int { return compareKeys(a.key, b.key) }) {
		return o.members
	}
	ms := slices.Clone(o.members)
	slices.SortStableFunc(ms, func(a, b member) int { return compareKeys(a.key, b.key) })
	return ms
}

// write writes the canonical encoding to w.
func (o *Object) write(w interface{ Write([]byte) (int, error) }) {
	var key []byte
	_, _ = w.Write([]byte{'{'})
	for i, m := range o.sorted() {
		key = appendString(key[:0], m.key)
		if i > 0 {
			_, _ = w.Write([]byte{','})
		}
		_, _ = w.Write(key)
		_, _ = w.Write([]byte{':'})
		_, _ = w.Write(o.buf[m.start:m.end])
	}
	_, _ = w.Write([]byte{'}'})
}

// Canonical returns the canonical encoding of the object.
func (o *Object) Canonical() []byte {
	var b bytes.Buffer
	o.write(&b)
	return b.Bytes()
}

// Sum returns the hash of the object.
func (o *Object) Sum() string {
	h := sha256.New()
	o.write(h)
	var sum [sha256.Size]byte
	return format(h.Sum(sum[:0]))
}

// Of returns the hash string of data as it is (no canonicalisation).
func Of(data []byte) string {
	sum := sha256.Sum256(data)
	return format(sum[:])
}

func format(sum []byte) string {
	var buf [len(Prefix) + 2*sha256.Size]byte
	copy(buf[:], Prefix)
	hex.Encode(buf[len(Prefix):], sum)
	return string(buf[:])
}

// Valid reports whether s is a well-formed hash string.
func Valid(s string) bool {
	hexPart, ok := strings.CutPrefix(s, Prefix)
	if !ok || len(hexPart) != 64 {
		return false
	}
	for i := 0; i < len(hexPart); i++ {
		c := hexPart[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// OfJSON returns the hash of a JSON document's canonical form: the hash of
// a whole value (a ledger record) whatever spacing or key order the file
// has. Numbers must be integers.
func OfJSON(data []byte) (string, error) {
	c, err := CanonicalJSON(data)
	if err != nil {
		return "", err
	}
	return Of(c), nil
}

// ErrNotCanonicalizable is returned for JSON agentx does not hash: a
// number that is not an integer, a document that does not parse.
var ErrNotCanonicalizable = errors.New("cannot canonicalise")

// CanonicalJSON re-encodes one JSON document in the canonical form.
func CanonicalJSON(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCanonicalizable, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the value", ErrNotCanonicalizable)
	}
	return appendValue(nil, v)
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendString(b, x), nil
	case json.Number:
		n, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: number %s is not an integer", ErrNotCanonicalizable, x)
		}
		return strconv.AppendInt(b, n, 10), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareKeys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("%w: %T", ErrNotCanonicalizable, v)
}

// compareKeys orders keys by UTF-16 code units, as RFC 8785 says.
func compareKeys(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return strings.Compare(a, b)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a canonical JSON string. Invalid UTF-8 (which
// a JSON decoder never yields) is written as U+FFFD, as decoders read it.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b = append(b, '\\', '"')
			case c == '\\':
				b = append(b, '\\', '\\')
			case c >= 0x20:
				b = append(b, c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// Integrity is what a stored value's hash says of it when it is read.
type Integrity int

const (
	// Intact: the recorded hash matches the content.
	Intact Integrity = iota
	// Unhashed: no hash was recorded (written by the old tools, or before
	// agentx recorded hashes): nothing to check, and nothing wrong.
	Unhashed
	// Tampered: the content changed since its hash was recorded (a hand
	// edit, another tool): not to be handed to an agent as it is.
	Tampered
)

// Check compares a recorded hash (ok false: none) with the computed one.
func Check(recorded string, ok bool, computed func() string) Integrity {
	switch {
	case !ok:
		return Unhashed
	case recorded == computed():
		return Intact
	default:
		return Tampered
	}
}

func (i Integrity) String() string {
	switch i {
	case Intact:
		return "intact"
	case Unhashed:
		return "unhashed"
	default:
		return "tampered"
	}
}

// MarshalText writes the state as its name in JSON documents.
func (i Integrity) MarshalText() ([]byte, error) { return []byte(i.String()), nil }
