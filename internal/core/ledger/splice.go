package ledger

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// appendBase is a canonical ledger as it was before an append-only change
// (Store.Append): its bytes, and a shallow copy of what it held (every
// record, thread entry and unknown key, strings and raw values shared) to
// tell that the change left it alone.
type appendBase struct {
	c       *canonical
	issue   int
	extra   []jsonfile.Field
	recs    []Record
	entries []Entry          // the records' threads, one after another
	fields  []jsonfile.Field // the records' and entries' unknown keys
}

// base snapshots l, just decoded from c's bytes.
func (c *canonical) base(l *Ledger) *appendBase {
	b := &appendBase{c: c, issue: l.IssueNumber, extra: append([]jsonfile.Field(nil), l.Extra...),
		recs: append([]Record(nil), l.Clarifications...)}
	ne, nf := 0, 0
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		ne += len(r.Thread)
		nf += len(r.Extra)
		for j := range r.Thread {
			nf += len(r.Thread[j].Extra)
		}
	}
	b.entries = make([]Entry, 0, ne)
	b.fields = make([]jsonfile.Field, 0, nf)
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		b.entries = append(b.entries, r.Thread...)
		b.fields = append(b.fields, r.Extra...)
		for j := range r.Thread {
			b.fields = append(b.fields, r.Thread[j].Extra...)
		}
	}
	return b
}

// splice returns the bytes of l laid out (what jsonfile.Marshal gives),
// made from the base's bytes with the records l gained spliced in, when l
// is the base with records appended; false when it is not (or there is no
// base), and l must be laid out whole.
func (b *appendBase) splice(l *Ledger) ([]byte, bool) {
	if b == nil || b.c.tail < 0 || !b.unchanged(l) {
		return nil, false
	}
	added := l.Clarifications[len(b.recs):]
	data := b.c.data
	// The records go where the array closes, in the buffer the file was
	// read into when it has the room (spliceRoom: one request's record),
	// else in a new one; what followed them is put back after. Nothing
	// aliases those last bytes (decodeCanonical copied the ledger's own
	// unknown keys), and nothing before them is touched.
	tail := append([]byte(nil), data[b.c.tail:]...)
	out := data[:b.c.tail]
	need := len(tail)
	for i := range added {
		need += 2*added[i].sizeHint() + indentPerRecord
	}
	if cap(out)-len(out) < need {
		out = append(make([]byte, 0, len(out)+need), out...)
	}
	for i := range added {
		out = jsonfile.Newline(append(out, ','), 2)
		var err error
		if out, err = added[i].appendIndented(out, 2); err != nil {
			return nil, false
		}
	}
	return append(out, tail...), true
}

// spliceRoom is the capacity a ledger is read with past its bytes, so
// that a request's record is spliced in place: a record with a question
// of validate.MaxBody bytes, escaped, would not fit and takes a new
// buffer.
const spliceRoom = 8 << 10

// unchanged reports whether l holds the base's records and keys as they
// were: every field the same (a string or raw value the same one), in
// the records, their threads and their unknown keys.
func (b *appendBase) unchanged(l *Ledger) bool {
	if l.IssueNumber != b.issue || len(l.Clarifications) < len(b.recs) || !sameFields(l.Extra, b.extra) {
		return false
	}
	entries, fields := b.entries, b.fields
	for i := range b.recs {
		r, was := &l.Clarifications[i], &b.recs[i]
		if !sameScalars(r, was) || len(r.Thread) != len(was.Thread) || !sameFields(r.Extra, fields[:len(was.Extra)]) {
			return false
		}
		fields = fields[len(was.Extra):]
		for j := range r.Thread {
			e, ewas := &r.Thread[j], &entries[j]
			if e.Round != ewas.Round || e.From != ewas.From || e.Type != ewas.Type || e.Body != ewas.Body ||
				e.Timestamp != ewas.Timestamp || len(e.Extra) != len(ewas.Extra) || !sameFields(e.Extra, fields[:len(ewas.Extra)]) {
				return false
			}
			fields = fields[len(ewas.Extra):]
		}
		entries = entries[len(r.Thread):]
	}
	return true
}

// sameScalars compares what a record holds outside its thread and keys.
// The snapshot shares ResolvedAt's pointer: its value was the same then.
func sameScalars(a, b *Record) bool {
	return a.ID == b.ID && a.IssueNumber == b.IssueNumber && a.From == b.From && a.To == b.To && a.Topic == b.Topic &&
		a.Blocking == b.Blocking && a.Status == b.Status && a.Round == b.Round && a.MaxRounds == b.MaxRounds &&
		a.Created == b.Created && a.StaleAfter == b.StaleAfter &&
		(a.ResolvedAt == nil) == (b.ResolvedAt == nil) && (a.ResolvedAt == nil || *a.ResolvedAt == *b.ResolvedAt)
}

// sameFields reports whether a holds b's keys with the very same raw
// values (a value is replaced, never written into).
func sameFields(a, b []jsonfile.Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || len(a[i].Value) != len(b[i].Value) ||
			(len(a[i].Value) > 0 && &a[i].Value[0] != &b[i].Value[0]) {
			return false
		}
	}
	return true
}

// sizeHint is about the length of the record's compact JSON.
func (r *Record) sizeHint() int {
	l := Ledger{Clarifications: []Record{*r}}
	return l.sizeHint()
}
