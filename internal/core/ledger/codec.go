package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// The codec is hand-written rather than reflection-driven for two reasons:
// keys we do not know must survive a rewrite in their place, and `clarify
// --json` parses every ledger of a workspace on each call, so decoding is on
// a hot path. Decoding goes through jsonfile.Object, the field decoder the
// memory store's files share; the tables are built on first use
// (jsonfile.Lazy: nothing at start).

// document is a ledger as its top-level keys decode: the records stay raw
// until the issue number, which they may lack, is known.
type document struct {
	Ledger
	recs []byte
}

var (
	documentFields = jsonfile.Lazy[document]{Build: func() *jsonfile.Object[document] {
		return &jsonfile.Object[document]{
			Fields: []jsonfile.FieldDecoder[document]{
				jsonfile.Int("issueNumber", func(d *document) *int { return &d.IssueNumber }),
				{Key: "clarifications", Decode: func(d *document, v []byte) error { d.recs = v; return nil }},
			},
			Extra: jsonfile.KeepExtra(func(d *document) *[]jsonfile.Field { return &d.Extra }),
		}
	}}
	recordFields = jsonfile.Lazy[Record]{Build: func() *jsonfile.Object[Record] {
		return &jsonfile.Object[Record]{
			Fields: []jsonfile.FieldDecoder[Record]{
				jsonfile.String("id", func(r *Record) *string { return &r.ID }),
				jsonfile.Int("issueNumber", func(r *Record) *int { return &r.IssueNumber }),
				jsonfile.String("from", func(r *Record) *string { return &r.From }),
				jsonfile.String("to", func(r *Record) *string { return &r.To }),
				jsonfile.String("topic", func(r *Record) *string { return &r.Topic }),
				jsonfile.Bool("blocking", func(r *Record) *bool { return &r.Blocking }),
				jsonfile.String("status", func(r *Record) *Status { return &r.Status }),
				jsonfile.Int("round", func(r *Record) *int { return &r.Round }),
				jsonfile.Int("maxRounds", func(r *Record) *int { return &r.MaxRounds }),
				jsonfile.String("created", func(r *Record) *string { return &r.Created }),
				jsonfile.String("staleAfter", func(r *Record) *string { return &r.StaleAfter }),
				{Key: "resolvedAt", Decode: decodeResolvedAt},
				{Key: "thread", Decode: decodeThread},
			},
			Extra: jsonfile.KeepExtra(func(r *Record) *[]jsonfile.Field { return &r.Extra }),
		}
	}}
	entryFields = jsonfile.Lazy[Entry]{Build: func() *jsonfile.Object[Entry] {
		return &jsonfile.Object[Entry]{
			Fields: []jsonfile.FieldDecoder[Entry]{
				jsonfile.Int("round", func(e *Entry) *int { return &e.Round }),
				jsonfile.String("from", func(e *Entry) *string { return &e.From }),
				jsonfile.String("type", func(e *Entry) *EntryType { return &e.Type }),
				jsonfile.String("body", func(e *Entry) *string { return &e.Body }),
				jsonfile.String("timestamp", func(e *Entry) *string { return &e.Timestamp }),
			},
			Extra: jsonfile.KeepExtra(func(e *Entry) *[]jsonfile.Field { return &e.Extra }),
		}
	}}
)

// Decode parses a ledger document. Records without issueNumber (written by
// the TypeScript extension) get the ledger's.
func Decode(data []byte) (*Ledger, error) {
	var d document
	if err := documentFields.Decode(data, &d); err != nil {
		var fe *jsonfile.FieldError
		if errors.As(err, &fe) {
			return nil, &jsonfile.ObjectError{Offset: offsetIn(data, fe.Value), Msg: fe.Error()}
		}
		return nil, err
	}
	l := &d.Ledger
	if d.recs != nil && !jsonfile.IsNull(d.recs) {
		// documentFields checked every byte: what is inside is only split.
		err := jsonfile.EachValidElement(d.recs, func(raw []byte) error {
			// Decoded in place: a Record of its own would escape to the heap.
			l.Clarifications = append(l.Clarifications, Record{})
			r := &l.Clarifications[len(l.Clarifications)-1]
			if err := decodeRecord(raw, r); err != nil {
				return err
			}
			if r.IssueNumber == 0 {
				r.IssueNumber = l.IssueNumber
			}
			return nil
		})
		if err != nil {
			return nil, offsetErr(data, d.recs, err)
		}
	}
	return l, nil
}

func decodeRecord(data []byte, r *Record) error {
	if err := recordFields.DecodeValid(data, r); err != nil {
		return fieldContext("record", err)
	}
	return nil
}

func decodeResolvedAt(r *Record, v []byte) error {
	if jsonfile.IsNull(v) {
		return nil
	}
	s, err := jsonfile.DecodeString(v)
	r.ResolvedAt = &s
	return err
}

func decodeThread(r *Record, v []byte) error {
	if jsonfile.IsNull(v) {
		return nil
	}
	return jsonfile.EachValidElement(v, func(raw []byte) error {
		r.Thread = append(r.Thread, Entry{})
		return decodeEntry(raw, &r.Thread[len(r.Thread)-1])
	})
}

func decodeEntry(data []byte, e *Entry) error {
	if err := entryFields.DecodeValid(data, e); err != nil {
		return fieldContext("thread", err)
	}
	return nil
}

// fieldContext names what a field belongs to ("record field "to": ...);
// an object that did not split is reported as it is.
func fieldContext(what string, err error) error {
	var fe *jsonfile.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s %w", what, err)
	}
	return err
}

// MarshalJSON writes the ledger's keys in the reference order, then the
// keys other tools added.
func (l Ledger) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	// One buffer of about the right size: grown by doubling, a 100 KB
	// ledger cost a dozen buffers and twice its size in fresh pages on
	// every write.
	b.Grow(l.sizeHint())
	b.WriteString(`{"issueNumber":`)
	b.WriteString(strconv.Itoa(l.IssueNumber))
	b.WriteString(`,"clarifications":[`)
	for i := range l.Clarifications {
		if i > 0 {
			b.WriteByte(',')
		}
		l.Clarifications[i].appendJSON(&b)
	}
	b.WriteByte(']')
	appendExtra(&b, l.Extra)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// sizeHint is about the length of the ledger's compact JSON, a little
// over: the keys and punctuation of each record and entry, and the
// lengths of their texts (escapes aside).
func (l *Ledger) sizeHint() int {
	n := 64 + extraLen(l.Extra)
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		n += 256 + len(r.ID) + len(r.From) + len(r.To) + len(r.Topic) + len(r.Created) + len(r.StaleAfter) + extraLen(r.Extra)
		for j := range r.Thread {
			e := &r.Thread[j]
			n += 64 + len(e.From) + len(e.Body) + len(e.Timestamp) + extraLen(e.Extra)
		}
	}
	return n + n/16
}

func extraLen(extra []jsonfile.Field) int {
	n := 0
	for _, f := range extra {
		n += len(f.Key) + len(f.Value) + 4
	}
	return n
}

// MarshalJSON writes one record (used by `--json` outputs).
func (r Record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	r.appendJSON(&b)
	return b.Bytes(), nil
}

func (r *Record) appendJSON(b *bytes.Buffer) {
	b.WriteString(`{"id":`)
	str(b, r.ID)
	b.WriteString(`,"issueNumber":`)
	b.WriteString(strconv.Itoa(r.IssueNumber))
	b.WriteString(`,"from":`)
	str(b, r.From)
	b.WriteString(`,"to":`)
	str(b, r.To)
	b.WriteString(`,"topic":`)
	str(b, r.Topic)
	b.WriteString(`,"blocking":`)
	b.WriteString(strconv.FormatBool(r.Blocking))
	b.WriteString(`,"status":`)
	str(b, string(r.Status))
	b.WriteString(`,"round":`)
	b.WriteString(strconv.Itoa(r.Round))
	b.WriteString(`,"maxRounds":`)
	b.WriteString(strconv.Itoa(r.MaxRounds))
	b.WriteString(`,"created":`)
	str(b, r.Created)
	b.WriteString(`,"staleAfter":`)
	str(b, r.StaleAfter)
	b.WriteString(`,"resolvedAt":`)
	if r.ResolvedAt == nil {
		b.WriteString("null")
	} else {
		str(b, *r.ResolvedAt)
	}
	b.WriteString(`,"thread":[`)
	for i := range r.Thread {
		if i > 0 {
			b.WriteByte(',')
		}
		e := &r.Thread[i]
		b.WriteString(`{"round":`)
		b.WriteString(strconv.Itoa(e.Round))
		b.WriteString(`,"from":`)
		str(b, e.From)
		b.WriteString(`,"type":`)
		str(b, string(e.Type))
		b.WriteString(`,"body":`)
		str(b, e.Body)
		b.WriteString(`,"timestamp":`)
		str(b, e.Timestamp)
		appendExtra(b, e.Extra)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	appendExtra(b, r.Extra)
	b.WriteByte('}')
}

func appendExtra(b *bytes.Buffer, extra []jsonfile.Field) {
	for _, f := range extra {
		b.WriteByte(',')
		str(b, f.Key)
		b.WriteByte(':')
		b.Write(f.Value)
	}
}

// str writes s as a JSON string into b without an allocation.
func str(b *bytes.Buffer, s string) { b.Write(jsonfile.AppendString(b.AvailableBuffer(), s)) }

func offsetErr(doc, part []byte, err error) error {
	var oe *jsonfile.ObjectError
	if errors.As(err, &oe) {
		return oe
	}
	return &jsonfile.ObjectError{Offset: offsetIn(doc, part), Msg: err.Error()}
}

// offsetIn returns where sub (a subslice of doc) starts in doc.
func offsetIn(doc, sub []byte) int64 {
	if len(sub) == 0 || len(doc) == 0 {
		return 0
	}
	d := int64(cap(doc) - cap(sub))
	if d < 0 || d > int64(len(doc)) {
		return 0
	}
	return d
}
