package ledger

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// A ledger agentx wrote is laid out canonically: exactly the bytes
// jsonfile.Marshal gives for what it holds (AppendIndentedJSON and a
// newline). decodeCanonical reads such a file in one pass, matching the
// layout byte for byte instead of scanning JSON generically: the general
// decoder checks every byte, then splits each record, each record's
// thread and each entry again, and copies every string; on a 100 KB
// ledger that was most of a `clarify request` beyond process start.
//
// It accepts only what it can vouch for: a file for which it says ok is
// one whose Ledger (what Parse gives, FuzzCanonicalMatchesParse) lays out
// to the very same bytes, so a change that appends records can be written
// by splicing them in (appendBase.splice). Anything else, valid or not (an
// escape in a string, a key out of place, an object kept under an unknown
// key, another tool's layout), is left to the general decoder, which
// also reports every error: the fast path reports none.

// canonical is a ledger decoded by decodeCanonical with where its bytes
// end their last record.
type canonical struct {
	data []byte
	// tail is where the clarifications array closes ("\n  ]"), the point
	// new records are spliced in; -1 when the array is empty.
	tail int
	// n is the number of records the bytes hold.
	n int
}

// canonReader walks the bytes of a canonical ledger. The strings it
// decodes are the bytes they were read from, not copies (a record costs
// no allocation per field, and the file's strings no second set of fresh
// pages, about 13 page faults for 120 records): a canonical string is its
// own bytes, and nothing writes over the bytes of the records once they
// are read (appendBase.splice writes only from where the array closes;
// what decodeCanonical keeps from past that point, the ledger's own
// unknown keys, it copies).
type canonReader struct {
	data []byte
	pos  int
	ok   bool
}

// decodeCanonical decodes data when it is in the canonical layout of a
// ledger of issue (which must be the file's own issueNumber, and every
// record's), and says false otherwise.
func decodeCanonical(data []byte, issue int) (*Ledger, *canonical, bool) {
	if issue <= 0 || len(data) == 0 {
		return nil, nil, false
	}
	c := &canonReader{data: data, ok: true}
	l := &Ledger{}
	c.lit("{\n  \"issueNumber\": ")
	l.IssueNumber = c.int()
	if !c.ok || l.IssueNumber != issue {
		return nil, nil, false
	}
	c.lit(",\n  \"clarifications\": [")
	out := &canonical{data: data, tail: -1}
	if c.peek() != ']' {
		// Sized at once (an estimate: brackets inside strings count too):
		// every record has a thread array, and the objects past the
		// document are the records and their entries. A vector count of
		// one byte costs little next to growing the slices.
		nrec := max(bytes.Count(data, []byte("["))-1, 1)
		nent := max(bytes.Count(data, []byte("{"))-1-nrec, 0)
		// One more: a request appends its record.
		l.Clarifications = make([]Record, 0, nrec+1)
		entries := make([]Entry, 0, nent)
		extras := make([]jsonfile.Field, 0, 2*nrec+nent)
		for c.ok {
			c.lit("\n    ")
			l.Clarifications = append(l.Clarifications, Record{})
			r := &l.Clarifications[len(l.Clarifications)-1]
			c.record(r, &entries, &extras)
			if r.IssueNumber != issue {
				return nil, nil, false
			}
			if c.peek() != ',' {
				break
			}
			c.pos++
		}
		out.tail = c.pos
		c.lit("\n  ")
	}
	c.lit("]")
	// The ledger's own unknown keys are copied, names and values: a splice
	// writes over the bytes after the records (appendBase.splice).
	l.Extra = c.extras(1, ledgerKeys, nil)
	for i := range l.Extra {
		l.Extra[i].Key = strings.Clone(l.Extra[i].Key)
		l.Extra[i].Value = append([]byte(nil), l.Extra[i].Value...)
	}
	c.lit("\n}\n")
	if !c.ok || c.pos != len(data) {
		return nil, nil, false
	}
	out.n = len(l.Clarifications)
	return l, out, true
}

var (
	ledgerKeys = []string{"issueNumber", "clarifications"}
	recordKeys = []string{"id", "issueNumber", "from", "to", "topic", "blocking", "status", "round", "maxRounds",
		"created", "staleAfter", "resolvedAt", "thread"}
	entryKeys = []string{"round", "from", "type", "body", "timestamp"}
)

// record reads one record whose opening brace is at c.pos, as
// Record.appendIndented lays it out at depth 2. Its thread entries and
// unknown keys are carved out of entries and extras (one allocation each
// for the whole ledger), each slice capped so an append to it copies.
func (c *canonReader) record(r *Record, entries *[]Entry, extras *[]jsonfile.Field) {
	c.lit("{\n      \"id\": ")
	r.ID = c.str()
	c.lit(",\n      \"issueNumber\": ")
	r.IssueNumber = c.int()
	c.lit(",\n      \"from\": ")
	r.From = c.str()
	c.lit(",\n      \"to\": ")
	r.To = c.str()
	c.lit(",\n      \"topic\": ")
	r.Topic = c.str()
	c.lit(",\n      \"blocking\": ")
	r.Blocking = c.bool()
	c.lit(",\n      \"status\": ")
	r.Status = Status(c.str())
	c.lit(",\n      \"round\": ")
	r.Round = c.int()
	c.lit(",\n      \"maxRounds\": ")
	r.MaxRounds = c.int()
	c.lit(",\n      \"created\": ")
	r.Created = c.str()
	c.lit(",\n      \"staleAfter\": ")
	r.StaleAfter = c.str()
	c.lit(",\n      \"resolvedAt\": ")
	if c.peek() == 'n' {
		c.lit("null")
	} else {
		v := c.str()
		r.ResolvedAt = &v
	}
	c.lit(",\n      \"thread\": [")
	if c.peek() != ']' {
		first := len(*entries)
		for c.ok {
			c.lit("\n        ")
			*entries = append(*entries, Entry{})
			c.entry(&(*entries)[len(*entries)-1], extras)
			if c.peek() != ',' {
				break
			}
			c.pos++
		}
		c.lit("\n      ")
		r.Thread = (*entries)[first:len(*entries):len(*entries)]
	}
	c.lit("]")
	r.Extra = c.extras(3, recordKeys, extras)
	c.lit("\n    }")
}

// entry reads one thread entry whose opening brace is at c.pos (depth 4).
func (c *canonReader) entry(e *Entry, extras *[]jsonfile.Field) {
	c.lit("{\n          \"round\": ")
	e.Round = c.int()
	c.lit(",\n          \"from\": ")
	e.From = c.str()
	c.lit(",\n          \"type\": ")
	e.Type = EntryType(c.str())
	c.lit(",\n          \"body\": ")
	e.Body = c.str()
	c.lit(",\n          \"timestamp\": ")
	e.Timestamp = c.str()
	e.Extra = c.extras(5, entryKeys, extras)
	c.lit("\n        }")
}

// extras reads the unknown keys after an object's last known one, each
// on a line at depth: a key the object knows would be decoded, not kept,
// so it is not canonical there. Values are kept raw, aliasing the input,
// as the general decoder keeps them; only those laid out the same at any
// depth (a string or a literal) are accepted. With arena, the fields are
// carved out of it.
func (c *canonReader) extras(depth int, known []string, arena *[]jsonfile.Field) []jsonfile.Field {
	var out []jsonfile.Field
	first := 0
	if arena != nil {
		first = len(*arena)
	}
	for c.ok && c.peek() == ',' {
		c.pos++
		c.lit("\n")
		for i := 0; i < depth; i++ {
			c.lit("  ")
		}
		kstart := c.pos
		key := c.str()
		if !c.ok || !plainKey(c.data[kstart:c.pos]) || jsonfile.Known(key, known) {
			c.ok = false
			break
		}
		c.lit(": ")
		v := c.scalar()
		f := jsonfile.Field{Key: key, Value: v}
		if arena != nil {
			*arena = append(*arena, f)
		} else {
			out = append(out, f)
		}
	}
	if arena != nil && len(*arena) > first {
		return (*arena)[first:len(*arena):len(*arena)]
	}
	return out
}

// plainKey reports whether a quoted key is printable ASCII without an
// escape: its unquoted form is its raw bytes, and it lays out as it is.
func plainKey(q []byte) bool {
	for _, b := range q[1 : len(q)-1] {
		if b < 0x20 || b >= 0x7f || b == '\\' {
			return false
		}
	}
	return true
}

func (c *canonReader) peek() byte {
	if !c.ok || c.pos >= len(c.data) {
		c.ok = false
		return 0
	}
	return c.data[c.pos]
}

// lit consumes p, which must be next.
func (c *canonReader) lit(p string) {
	if !c.ok || len(c.data)-c.pos < len(p) || string(c.data[c.pos:c.pos+len(p)]) != p {
		c.ok = false
		return
	}
	c.pos += len(p)
}

// str reads a string that decodes to its own bytes and lays out as them
// again (jsonfile.AppendString): no escape, no control character, valid
// UTF-8 without U+2028 and U+2029 (which the encoder escapes).
func (c *canonReader) str() string {
	if c.peek() != '"' {
		c.ok = false
		return ""
	}
	start := c.pos + 1
	end := bytes.IndexByte(c.data[start:], '"')
	if end < 0 {
		c.ok = false
		return ""
	}
	end += start
	inner := c.data[start:end]
	ctl, ascii := controlOrWide(inner)
	if ctl || bytes.IndexByte(inner, '\\') >= 0 {
		c.ok = false
		return ""
	}
	if !ascii && (!utf8.Valid(inner) || bytes.Contains(inner, []byte("\u2028")) || bytes.Contains(inner, []byte("\u2029"))) {
		c.ok = false
		return ""
	}
	c.pos = end + 1
	if len(inner) == 0 {
		return ""
	}
	// The string is the bytes it was read from (see canonReader).
	return unsafe.String(&inner[0], len(inner))
}

// int reads an integer as strconv writes it: no sign but a minus, no
// leading zero, no fraction or exponent, and no "-0".
func (c *canonReader) int() int {
	if !c.ok {
		return 0
	}
	start := c.pos
	i := start
	if i < len(c.data) && c.data[i] == '-' {
		i++
	}
	digits := i
	for i < len(c.data) && c.data[i] >= '0' && c.data[i] <= '9' {
		i++
	}
	nd := i - digits
	if nd == 0 || nd > 18 || (c.data[digits] == '0' && (nd > 1 || digits > start)) {
		c.ok = false
		return 0
	}
	n := 0
	for _, d := range c.data[digits:i] {
		n = n*10 + int(d-'0') // at most 18 digits: no overflow
	}
	if digits > start {
		n = -n
	}
	c.pos = i
	return n
}

func (c *canonReader) bool() bool {
	switch c.peek() {
	case 't':
		c.lit("true")
		return true
	default:
		c.lit("false")
		return false
	}
}

// scalar reads the raw value of an unknown key: a string as str accepts
// it, true, false, null or a JSON number. It aliases the input.
func (c *canonReader) scalar() []byte {
	start := c.pos
	switch c.peek() {
	case '"':
		c.str()
	case 't':
		c.lit("true")
	case 'f':
		c.lit("false")
	case 'n':
		c.lit("null")
	default:
		c.number()
	}
	if !c.ok {
		return nil
	}
	return c.data[start:c.pos:c.pos]
}

// number reads a JSON number: the bytes up to the next delimiter, valid
// as JSON (encoding/json's grammar, as the general decoder's scanner
// checks a literal) and starting as a number does.
func (c *canonReader) number() {
	d, i := c.data, c.pos
	for i < len(d) && !strings.ContainsRune(",}] \t\n\r", rune(d[i])) {
		i++
	}
	if lit := d[c.pos:i]; len(lit) == 0 || (lit[0] != '-' && (lit[0] < '0' || lit[0] > '9')) || !json.Valid(lit) {
		c.ok = false
		return
	}
	c.pos = i
}

// controlOrWide reports whether b holds a control character (below 0x20)
// and whether it is all ASCII, eight bytes at a time: the strings are
// most of a ledger's bytes.
func controlOrWide(b []byte) (ctl, ascii bool) {
	const lo, hi = 0x2020202020202020, 0x8080808080808080
	var wide, less uint64
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		wide |= w
		// A byte below 0x20 borrows into its top bit, which it does not
		// have itself (a byte at 0x80 or above neither borrows nor counts):
		// exact as to whether there is one.
		less |= (w - lo) &^ w & hi
		b = b[8:]
	}
	for _, c := range b {
		wide |= uint64(c)
		if c < 0x20 {
			less = 1
		}
	}
	return less != 0, wide&hi == 0
}
