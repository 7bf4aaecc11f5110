package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// The codec is hand-written rather than reflection-driven for two reasons:
// keys we do not know must survive a rewrite in their place, and `clarify
// --json` parses every ledger of a workspace on each call, so decoding is on
// a hot path.

// Decode parses a ledger document. Records without issueNumber (written by
// the TypeScript extension) get the ledger's.
func Decode(data []byte) (*Ledger, error) {
	fields, err := jsonfile.SplitObject(data)
	if err != nil {
		return nil, err
	}
	l := &Ledger{}
	var recs json.RawMessage
	for _, f := range fields {
		switch f.Key {
		case "issueNumber":
			if l.IssueNumber, err = jsonfile.DecodeInt(f.Value); err != nil {
				return nil, fieldErr(data, f, err)
			}
		case "clarifications":
			recs = f.Value
		default:
			l.Extra = append(l.Extra, f)
		}
	}
	if recs != nil && !jsonfile.IsNull(recs) {
		err := jsonfile.EachElement(recs, func(raw []byte) error {
			r, err := decodeRecord(raw)
			if err != nil {
				return err
			}
			if r.IssueNumber == 0 {
				r.IssueNumber = l.IssueNumber
			}
			l.Clarifications = append(l.Clarifications, r)
			return nil
		})
		if err != nil {
			return nil, offsetErr(data, recs, err)
		}
	}
	return l, nil
}

func decodeRecord(data []byte) (Record, error) {
	var r Record
	fields, err := jsonfile.SplitObject(data)
	if err != nil {
		return r, err
	}
	for _, f := range fields {
		v := f.Value
		switch f.Key {
		case "id":
			r.ID, err = jsonfile.DecodeString(v)
		case "issueNumber":
			r.IssueNumber, err = jsonfile.DecodeInt(v)
		case "from":
			r.From, err = jsonfile.DecodeString(v)
		case "to":
			r.To, err = jsonfile.DecodeString(v)
		case "topic":
			r.Topic, err = jsonfile.DecodeString(v)
		case "blocking":
			r.Blocking, err = jsonfile.DecodeBool(v)
		case "status":
			var s string
			s, err = jsonfile.DecodeString(v)
			r.Status = Status(s)
		case "round":
			r.Round, err = jsonfile.DecodeInt(v)
		case "maxRounds":
			r.MaxRounds, err = jsonfile.DecodeInt(v)
		case "created":
			r.Created, err = jsonfile.DecodeString(v)
		case "staleAfter":
			r.StaleAfter, err = jsonfile.DecodeString(v)
		case "resolvedAt":
			if !jsonfile.IsNull(v) {
				var s string
				s, err = jsonfile.DecodeString(v)
				r.ResolvedAt = &s
			}
		case "thread":
			if !jsonfile.IsNull(v) {
				err = jsonfile.EachElement(v, func(raw []byte) error {
					e, err := decodeEntry(raw)
					if err == nil {
						r.Thread = append(r.Thread, e)
					}
					return err
				})
			}
		default:
			r.Extra = append(r.Extra, f)
		}
		if err != nil {
			return r, fmt.Errorf("record field %q: %w", f.Key, err)
		}
	}
	return r, nil
}

func decodeEntry(data []byte) (Entry, error) {
	var e Entry
	fields, err := jsonfile.SplitObject(data)
	if err != nil {
		return e, err
	}
	for _, f := range fields {
		v := f.Value
		switch f.Key {
		case "round":
			e.Round, err = jsonfile.DecodeInt(v)
		case "from":
			e.From, err = jsonfile.DecodeString(v)
		case "type":
			var s string
			s, err = jsonfile.DecodeString(v)
			e.Type = EntryType(s)
		case "body":
			e.Body, err = jsonfile.DecodeString(v)
		case "timestamp":
			e.Timestamp, err = jsonfile.DecodeString(v)
		default:
			e.Extra = append(e.Extra, f)
		}
		if err != nil {
			return e, fmt.Errorf("thread field %q: %w", f.Key, err)
		}
	}
	return e, nil
}

// MarshalJSON writes the ledger's keys in the reference order, then the
// keys other tools added.
func (l Ledger) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
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

func fieldErr(doc []byte, f jsonfile.Field, err error) error {
	return &jsonfile.ObjectError{Offset: offsetIn(doc, f.Value), Msg: fmt.Sprintf("field %q: %v", f.Key, err)}
}

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
