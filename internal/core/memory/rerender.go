package memory

import (
	"maps"
	"slices"

	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// rerenderMany is rerender for many issues at once (want: each issue's
// observations now): one copy of the other issues' rows and one pass over
// the index's postings, whatever the number of issues; only their texts are
// analysed. It reports false, having changed nothing, when the manifest is
// not laid out as renderManifest lays it (the caller reconciles).
func (s *Store) rerenderMany(st *state, want map[int][]Observation) (bool, error) {
	keep := func(d int) bool { _, ok := want[st.ix.IssueOf(d)]; return !ok }
	body, refs, tail, ok := s.copyRows(st, keep)
	if !ok {
		return false, nil
	}
	total := len(refs)
	for _, obs := range want {
		total += len(obs)
	}
	if total == 0 {
		return false, nil // no rows left: the reference way of an empty array
	}
	b, err := st.ix.Builder(keep)
	if err != nil {
		return false, err
	}
	for i, r := range refs {
		b.SetRef(i, r)
	}
	issues := slices.Sorted(maps.Keys(want))
	var all []*Observation
	for _, n := range issues {
		for i := range want[n] {
			all = append(all, &want[n][i])
		}
	}
	analysed := analyseAll(len(all), func(i int) (string, string) { return all[i].Summary, all[i].Content })
	rows := len(refs)
	l := s.rowLayout()
	for _, o := range all {
		e := o.Entry()
		var ref memindex.Ref
		body, ref = l.appendRow(body, &e, rows == 0)
		rows++
		b.AddAnalysed(docOf(&e, ref), <-analysed)
	}
	body = append(body, tail...)
	data, stamp := seal(body, st.stamp.Generation+1)
	return true, st.replace(b, data, stamp)
}
