package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// The codec is hand-written rather than reflection-driven for two reasons:
// keys we do not know must survive a rewrite in their place, and `clarify
// --json` parses every ledger of a workspace on each call, so decoding is on
// a hot path.

var (
	ledgerKeys = []string{"issueNumber", "clarifications"}
	recordKeys = []string{"id", "issueNumber", "from", "to", "topic", "blocking", "status",
		"round", "maxRounds", "created", "staleAfter", "resolvedAt", "thread"}
	entryKeys = []string{"round", "from", "type", "body", "timestamp"}
)

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
			if l.IssueNumber, err = decInt(f.Value); err != nil {
				return nil, fieldErr(data, f, err)
			}
		case "clarifications":
			recs = f.Value
		default:
			l.Extra = append(l.Extra, f)
		}
	}
	if recs != nil && !isNull(recs) {
		err := eachElement(recs, func(raw []byte) error {
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
			r.ID, err = decString(v)
		case "issueNumber":
			r.IssueNumber, err = decInt(v)
		case "from":
			r.From, err = decString(v)
		case "to":
			r.To, err = decString(v)
		case "topic":
			r.Topic, err = decString(v)
		case "blocking":
			r.Blocking, err = decBool(v)
		case "status":
			var s string
			s, err = decString(v)
			r.Status = Status(s)
		case "round":
			r.Round, err = decInt(v)
		case "maxRounds":
			r.MaxRounds, err = decInt(v)
		case "created":
			r.Created, err = decString(v)
		case "staleAfter":
			r.StaleAfter, err = decString(v)
		case "resolvedAt":
			if !isNull(v) {
				var s string
				s, err = decString(v)
				r.ResolvedAt = &s
			}
		case "thread":
			if !isNull(v) {
				err = eachElement(v, func(raw []byte) error {
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
			e.Round, err = decInt(v)
		case "from":
			e.From, err = decString(v)
		case "type":
			var s string
			s, err = decString(v)
			e.Type = EntryType(s)
		case "body":
			e.Body, err = decString(v)
		case "timestamp":
			e.Timestamp, err = decString(v)
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
	appendString(b, r.ID)
	b.WriteString(`,"issueNumber":`)
	b.WriteString(strconv.Itoa(r.IssueNumber))
	b.WriteString(`,"from":`)
	appendString(b, r.From)
	b.WriteString(`,"to":`)
	appendString(b, r.To)
	b.WriteString(`,"topic":`)
	appendString(b, r.Topic)
	b.WriteString(`,"blocking":`)
	b.WriteString(strconv.FormatBool(r.Blocking))
	b.WriteString(`,"status":`)
	appendString(b, string(r.Status))
	b.WriteString(`,"round":`)
	b.WriteString(strconv.Itoa(r.Round))
	b.WriteString(`,"maxRounds":`)
	b.WriteString(strconv.Itoa(r.MaxRounds))
	b.WriteString(`,"created":`)
	appendString(b, r.Created)
	b.WriteString(`,"staleAfter":`)
	appendString(b, r.StaleAfter)
	b.WriteString(`,"resolvedAt":`)
	if r.ResolvedAt == nil {
		b.WriteString("null")
	} else {
		appendString(b, *r.ResolvedAt)
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
		appendString(b, e.From)
		b.WriteString(`,"type":`)
		appendString(b, string(e.Type))
		b.WriteString(`,"body":`)
		appendString(b, e.Body)
		b.WriteString(`,"timestamp":`)
		appendString(b, e.Timestamp)
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
		appendString(b, f.Key)
		b.WriteByte(':')
		b.Write(f.Value)
	}
}

// appendString writes s as a JSON string without HTML escaping, matching
// JSON.stringify.
func appendString(b *bytes.Buffer, s string) {
	simple := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
}

func isNull(v []byte) bool { return string(bytes.TrimSpace(v)) == "null" }

func decString(v []byte) (string, error) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		s := v[1 : len(v)-1]
		ok := true
		for _, c := range s {
			if c < 0x20 || c >= 0x80 || c == '\\' {
				ok = false
				break
			}
		}
		if ok {
			return string(s), nil
		}
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", err
	}
	return s, nil
}

func decInt(v []byte) (int, error) {
	if n, err := strconv.Atoi(string(v)); err == nil {
		return n, nil
	}
	// Integral floats (1.0, 1e2) are accepted; anything else is corrupt.
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		return 0, fmt.Errorf("not a number: %s", truncate(v))
	}
	if f != float64(int(f)) {
		return 0, fmt.Errorf("not an integer: %s", truncate(v))
	}
	return int(f), nil
}

func decBool(v []byte) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %s", truncate(v))
}

func truncate(v []byte) string {
	if len(v) > 40 {
		return string(v[:40]) + "..."
	}
	return string(v)
}

// eachElement calls fn with each raw element of the JSON array in v.
func eachElement(v []byte, fn func([]byte) error) error {
	// Wrap the array as an object so SplitObject's scanner validates it and
	// gives element bounds without decoding.
	wrapped := make([]byte, 0, len(v)+6)
	wrapped = append(wrapped, `{"a":`...)
	wrapped = append(wrapped, v...)
	wrapped = append(wrapped, '}')
	fields, err := jsonfile.SplitObject(wrapped)
	if err != nil {
		return err
	}
	arr := bytes.TrimSpace(fields[0].Value)
	if len(arr) == 0 || arr[0] != '[' {
		return fmt.Errorf("expected an array, got %s", truncate(arr))
	}
	return splitArray(arr, fn)
}

// splitArray walks an already validated array.
func splitArray(arr []byte, fn func([]byte) error) error {
	depth, inStr, esc, start := 0, false, false, -1
	for i := 1; i < len(arr)-1; i++ {
		c := arr[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				if err := fn(bytes.TrimSpace(arr[start:i])); err != nil {
					return err
				}
				start = -1
				continue
			}
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		return fn(bytes.TrimSpace(arr[start : len(arr)-1]))
	}
	return nil
}

func fieldErr(doc []byte, f jsonfile.Field, err error) error {
	return &jsonfile.ObjectError{Offset: offsetIn(doc, f.Value), Msg: fmt.Sprintf("field %q: %v", f.Key, err)}
}

func offsetErr(doc, part []byte, err error) error {
	if oe, ok := err.(*jsonfile.ObjectError); ok {
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
