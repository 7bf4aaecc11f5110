package memory

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// A search prints twenty rows, each read from its issue file at the
// offset the index keeps (filerows.go) and decoded: the general decoder
// (decodeRow, jsonfile's) checked the row byte at a time, made a string
// of each field, and a second pass found where the row ends (objectEnd):
// 1.3 µs a row, a seventh of a search at 100K observations (issue 35). fastRow is the same decoding for the rows
// agentx and the reference tools write: flat objects of plain keys,
// strings and integers. It checks what the general decoder checks (a
// string's quote and escapes found by vector searches, the bytes between
// eight at a time) and finds the end as it goes; anything
// else (an escape in a field it keeps, a float, a nested value, bad JSON)
// is left to the general decoder, so a row decodes to the same Entry, or
// fails the same, either way (FuzzFastRow holds it to that).

// fastRow decodes the JSON object at the start of b as decodeRow decodes
// b[:end], end being the object's length: ok is false when it cannot tell
// (b holds no complete object of the simple kind), and the caller asks the
// general decoder. agent and category are the strings the row's are
// expected to equal (the index's): when they do, the Entry shares them,
// and the row's other strings share one allocation (a search's rows made
// a hundred strings).
func fastRow(b []byte, agent, category string) (e Entry, end int, ok bool) {
	var sp rowSpans
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return Entry{}, 0, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return e, i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return Entry{}, 0, false
		}
		ke, flags, kok := scanString(b, i+1)
		if !kok || flags != 0 {
			return Entry{}, 0, false // a key with escapes or beyond ASCII
		}
		key := b[i+1 : ke]
		i = skipSpace(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return Entry{}, 0, false
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return Entry{}, 0, false
		}
		if i, ok = sp.value(b, i, key, &e); !ok {
			return Entry{}, 0, false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return Entry{}, 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			sp.fill(&e, agent, category)
			return e, i + 1, true
		default:
			return Entry{}, 0, false
		}
	}
}

// value reads the value at b[i] of the field key (a string or an
// integer: anything else is the general decoder's) into sp or e; j is
// the index after it.
func (sp *rowSpans) value(b []byte, i int, key []byte, e *Entry) (j int, ok bool) {
	if b[i] != '"' {
		n, j, ok := scanInt(b, i)
		return j, ok && e.setInt(key, n)
	}
	end, flags, ok := scanString(b, i+1)
	return end + 1, ok && sp.set(key, b[i+1:end], flags)
}

// rowSpans are the values of a row's string fields, as they stand
// between their quotes (nil: absent).
type rowSpans struct {
	id, agent, category, summary, timestamp []byte
}

// set keeps the string value v (its bytes between the quotes) of the
// field key names; false when the general decoder would decode it
// otherwise (an escape) or fail (a string for a number; invalid UTF-8,
// which it turns into U+FFFD). A key that is not a row's is stepped over.
// A later value of the same key replaces an earlier one, as there.
func (sp *rowSpans) set(key, v []byte, flags strFlags) bool {
	var dst *[]byte
	switch string(key) {
	case "id":
		dst = &sp.id
	case "agent":
		dst = &sp.agent
	case "category":
		dst = &sp.category
	case "summary":
		dst = &sp.summary
	case "timestamp":
		dst = &sp.timestamp
	case "issueNumber", "tokens":
		return false
	default:
		return true
	}
	if flags&strEscaped != 0 || (flags&strWide != 0 && !utf8.Valid(v)) {
		return false
	}
	*dst = v
	return true
}

// fill sets e's string fields from the spans: agent and category shared
// with the given strings when equal, the rest cut from one string.
func (sp *rowSpans) fill(e *Entry, agent, category string) {
	if string(sp.agent) == agent {
		e.Agent, sp.agent = agent, nil
	}
	if string(sp.category) == category {
		e.Category, sp.category = Category(category), nil
	}
	parts := [...]*[]byte{&sp.id, &sp.agent, &sp.category, &sp.summary, &sp.timestamp}
	n := 0
	for _, p := range parts {
		n += len(*p)
	}
	if n == 0 {
		return
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, p := range parts {
		sb.Write(*p)
	}
	all, at := sb.String(), 0
	cut := func(p []byte) string {
		at += len(p)
		return all[at-len(p) : at]
	}
	e.ID = cut(sp.id)
	if sp.agent != nil {
		e.Agent = cut(sp.agent)
	}
	if sp.category != nil {
		e.Category = Category(cut(sp.category))
	}
	e.Summary = cut(sp.summary)
	e.Timestamp = cut(sp.timestamp)
}

// setInt sets the integer field key names to n; false for a string
// field (the general decoder fails on a number there).
func (e *Entry) setInt(key []byte, n int) bool {
	switch string(key) {
	case "issueNumber":
		e.IssueNumber = n
	case "tokens":
		e.Tokens = n
	case "id", "agent", "category", "summary", "timestamp":
		return false
	}
	return true
}

// skipSpace is the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// strFlags say what a string held beyond plain printable ASCII.
type strFlags uint8

const (
	strEscaped strFlags = 1 << iota // a backslash escape
	strWide                         // a byte beyond ASCII
)

// Bytes repeated in every lane of a word, for the word-at-a-time scan.
const (
	lanes1   = 0x0101010101010101
	lanesTop = 0x8080808080808080
)

// scanString checks the JSON string whose bytes start at i (after the
// opening quote) as jsonfile's scanner checks one: no control character,
// only JSON's escapes. end is the index of the closing quote; ok is false
// when the string is invalid or b ends first. The next quote and any
// backslash before it are found by bytes.IndexByte (vector searches),
// and the bytes between are checked eight at a time for control
// characters (an observation's text is most of a row).
func scanString(b []byte, i int) (end int, flags strFlags, ok bool) {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return 0, 0, false
		}
		q += i
		bs := bytes.IndexByte(b[i:q], '\\')
		if bs < 0 {
			if !plainRun(b[i:q], &flags) {
				return 0, 0, false
			}
			return q, flags, true
		}
		bs += i
		k := escapeLen(b, bs)
		if k == 0 || !plainRun(b[i:bs], &flags) {
			return 0, 0, false
		}
		flags |= strEscaped
		i = bs + k // past the escape (an escaped quote among them)
	}
}

// plainRun reports whether run holds no control character, noting in
// flags a byte beyond ASCII.
func plainRun(run []byte, flags *strFlags) bool {
	var wide uint64
	for len(run) >= 8 {
		x := binary.LittleEndian.Uint64(run)
		// A lane under 0x20 sets its top bit here (the classic test,
		// exact as a whole).
		if (x-0x20*lanes1)&^x&lanesTop != 0 {
			return false
		}
		wide |= x
		run = run[8:]
	}
	for _, c := range run {
		if c < 0x20 {
			return false
		}
		wide |= uint64(c)
	}
	if wide&lanesTop != 0 {
		*flags |= strWide
	}
	return true
}

// escapeLen is the length of the valid escape at b[i] (a backslash), 0
// when it is not one.
func escapeLen(b []byte, i int) int {
	if i+1 >= len(b) {
		return 0
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if i+6 > len(b) {
			return 0
		}
		for _, h := range b[i+2 : i+6] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// scanInt reads the integer at b[i] as the general decoder reads one: a
// JSON integer (no leading zero) of up to 18 digits, ended by what ends a
// JSON literal. j is the index after it; ok is false for anything else
// (a fraction, an exponent, more digits: the general decoder's).
func scanInt(b []byte, i int) (n, j int, ok bool) {
	j = i
	neg := j < len(b) && b[j] == '-'
	if neg {
		j++
	}
	start := j
	for j < len(b) && '0' <= b[j] && b[j] <= '9' {
		n = n*10 + int(b[j]-'0')
		j++
	}
	digits := j - start
	if digits == 0 || digits > 18 || (digits > 1 && b[start] == '0') {
		return 0, 0, false
	}
	if j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
		default:
			return 0, 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, j, true
}
