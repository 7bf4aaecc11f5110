package memory

import (
	"bytes"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// Splicing rows into manifest.json (a manifest base: `[memory] manifest =
// "reference"` or "delta"): an issue's rows appended or re-rendered in place,
// the other rows copied as rendered bytes.

// entryAt decodes the manifest row at ref.
func entryAt(data []byte, ref memindex.Ref) (Entry, error) {
	end := uint64(ref.Off) + uint64(ref.Len)
	if end > uint64(len(data)) {
		return Entry{}, memindex.ErrFormat
	}
	return decodeEntry(data[ref.Off:end])
}

// syncIssue brings the manifest's entries for issue n in line with its
// issue file: appended in place when the file only gained observations at
// the end (the common capture), re-rendered otherwise.
func (s *Store) syncIssue(st *state, n int) error {
	f, err := s.readIssue(n)
	if err != nil {
		s.skip(n, err)
		return nil
	}
	var cur []int
	for d := 0; d < st.ix.Len(); d++ {
		if st.ix.Doc(d).Issue == n {
			cur = append(cur, d)
		}
	}
	want := f.Observations
	prefix := len(cur) <= len(want)
	for i := 0; prefix && i < len(cur); i++ {
		e, err := entryAt(st.data, st.ix.Doc(cur[i]).Ref)
		w := want[i].Entry()
		if err != nil || e.ID != w.ID || e.Agent != w.Agent || e.IssueNumber != w.IssueNumber ||
			e.Category != w.Category || e.Summary != w.Summary || e.Tokens != w.Tokens || e.Timestamp != w.Timestamp {
			prefix = false
		}
	}
	if prefix && len(cur) == len(want) {
		return nil
	}
	if prefix && s.appendEntries(st, want[len(cur):]) {
		return nil
	}
	return s.rerender(st, n, want)
}

// appendEntries splices new rows at the end of the entries array, leaving
// every existing row (and its index reference) where it is. It reports
// false when the manifest's shape does not allow it.
func (s *Store) appendEntries(st *state, add []Observation) bool {
	_, prefixLen, ok := readStamp(st.data, int64(len(st.data)), false)
	n := st.ix.Len()
	if !ok || n == 0 {
		return false
	}
	// The last row must end just before the closing bracket and sit as
	// this store lays rows out (layout.go), or it is rendered again.
	const tail = "\n  ]"
	l := s.rowLayout()
	last := st.ix.Doc(n - 1).Ref
	if int(last.Off)+int(last.Len) != prefixLen-len(tail) || !l.laidOut(st.data, int(last.Off)) ||
		string(st.data[prefixLen-len(tail):prefixLen]) != tail {
		return false
	}
	prefix := st.data[:prefixLen]
	body := make([]byte, 0, len(prefix)+len(add)*320+64)
	body = append(body, prefix[:len(prefix)-len(tail)]...)
	if !replaceUpdatedAt(body, clock.Format(s.now())) {
		return false
	}
	b, err := st.ix.Builder(nil)
	if err != nil {
		return false
	}
	for i := range add {
		e := add[i].Entry()
		var ref memindex.Ref
		body, ref = l.appendRow(body, &e, false)
		b.Add(docOf(&e, ref), e.Summary, add[i].Content)
	}
	body = append(body, tail...)
	data, stamp := seal(body, st.stamp.Generation+1)
	return st.replace(b, data, stamp) == nil
}

// replaceUpdatedAt rewrites the top-level updatedAt in place when the new
// value has the old one's length (always, for our ISO timestamps).
func replaceUpdatedAt(body []byte, ts string) bool {
	key := []byte("\n  \"updatedAt\": \"")
	head := body[:min(len(body), 128)]
	i := bytes.Index(head, key)
	if i < 0 {
		return false
	}
	start := i + len(key)
	end := bytes.IndexByte(body[start:], '"')
	if end != len(ts) {
		return false
	}
	copy(body[start:], ts)
	return true
}

// rerender replaces all of issue n's rows with want. Rows of other issues
// are copied as rendered bytes (they are our own rendering, located by the
// index), so nothing is decoded; a manifest laid out otherwise is parsed
// and rendered again.
func (s *Store) rerender(st *state, n int, want []Observation) error {
	keep := func(d int) bool { return st.ix.Doc(d).Issue != n }
	b, err := st.ix.Builder(keep)
	if err != nil {
		return err
	}
	body, refs, tail, ok := s.copyRows(st, keep)
	if !ok {
		return s.rerenderParsed(st, n, want)
	}
	if len(refs) == 0 && len(want) == 0 {
		// No rows left: render the empty array the reference way.
		return s.rerenderParsed(st, n, want)
	}
	for i, r := range refs {
		b.SetRef(i, r)
	}
	l := s.rowLayout()
	for i := range want {
		e := want[i].Entry()
		var ref memindex.Ref
		body, ref = l.appendRow(body, &e, len(refs) == 0 && i == 0)
		b.Add(docOf(&e, ref), e.Summary, want[i].Content)
	}
	body = append(body, tail...)
	data, stamp := seal(body, st.stamp.Generation+1)
	return st.replace(b, data, stamp)
}

// copyRows copies the head of the manifest and the rows keep accepts,
// recording where each lands, and what follows the last row (tail). It
// reports false unless the rows sit back to back as renderManifest lays
// them out.
func (s *Store) copyRows(st *state, keep func(d int) bool) (body []byte, refs []memindex.Ref, tail []byte, ok bool) {
	_, prefixLen, ok := readStamp(st.data, int64(len(st.data)), false)
	n := st.ix.Len()
	if !ok || n == 0 {
		return nil, nil, nil, false
	}
	l := s.rowLayout()
	sep := l.sep()
	first, last := st.ix.Doc(0).Ref, st.ix.Doc(n-1).Ref
	if !l.laidOut(st.data, int(first.Off)) || int(last.Off+last.Len) > prefixLen {
		return nil, nil, nil, false
	}
	head := st.data[:int(first.Off)-len(sep)]
	// Room for the rows the caller appends (an issue's, re-rendered) and
	// one slice of refs: no copy of a 10 MB manifest on the way.
	body = make([]byte, 0, len(st.data)+len(st.data)/32+4096)
	refs = make([]memindex.Ref, 0, n)
	body = append(body, head...)
	if !replaceUpdatedAt(body, clock.Format(s.now())) {
		return nil, nil, nil, false
	}
	next := first.Off
	for d := 0; d < n; d++ {
		r := st.ix.Doc(d).Ref
		if r.Off != next {
			return nil, nil, nil, false
		}
		next = r.Off + r.Len + uint32(len(","+sep))
		if !keep(d) {
			continue
		}
		if len(refs) > 0 {
			body = append(body, ',')
		}
		body = append(body, sep...)
		refs = append(refs, memindex.Ref{Off: uint32(len(body)), Len: r.Len})
		body = append(body, st.data[r.Off:r.Off+r.Len]...)
	}
	tail = st.data[last.Off+last.Len : prefixLen]
	if !bytes.HasPrefix(tail, []byte("\n  ]")) {
		return nil, nil, nil, false
	}
	return body, refs, tail, true
}

// rerenderParsed is rerender for a manifest we must parse first.
func (s *Store) rerenderParsed(st *state, n int, want []Observation) error {
	m, err := ParseManifest(s.ManifestPath(), st.data)
	if err != nil || len(m.Entries) != st.ix.Len() {
		// Our own render no longer matches its index: start over.
		ns, _, err := s.reconcile(m, st.stamp.Generation)
		if err != nil {
			return err
		}
		*st = *ns
		return nil
	}
	b, err := st.ix.Builder(func(d int) bool { return m.Entries[d].IssueNumber != n })
	if err != nil {
		return err
	}
	kept := m.Entries[:0]
	for _, e := range m.Entries {
		if e.IssueNumber != n {
			kept = append(kept, e)
		}
	}
	m.Entries = kept
	for i := range want {
		e := want[i].Entry()
		m.Entries = append(m.Entries, e)
		b.Add(docOf(&e, memindex.Ref{}), e.Summary, want[i].Content)
	}
	m.UpdatedAt = clock.Format(s.now())
	data, refs, stamp := renderManifest(m, st.stamp.Generation+1, s.rowLayout())
	for i, r := range refs {
		b.SetRef(i, r)
	}
	return st.replace(b, data, stamp)
}
