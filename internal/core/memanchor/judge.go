package memanchor

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// judge applies the rule to the observations of issue n's file.
func (x *Index) judge(st *state, base *baseReader, n int, obs []memory.Observation) (Verdict, error) {
	view := *st.view
	view.Obs = map[string]Anchor{}
	sections := map[int]bool{}
	load := func(issue int) error {
		if sections[issue] {
			return nil
		}
		sections[issue] = true
		return x.section(st, base, issue, view.Obs)
	}
	if err := load(n); err != nil {
		return Verdict{}, err
	}
	var archive map[string]bool
	archived := func(id string) bool {
		if archive == nil {
			archive = x.archived(n)
		}
		return archive[id]
	}
	var v Verdict
	present := make(map[string]bool, len(obs))
	for i := range obs {
		o := &obs[i]
		present[o.ID] = true
		if k := IssueKey(o.ID, n); k != n {
			if err := load(k); err != nil {
				return Verdict{}, err
			}
		}
		if f, ok := judgeOne(&view, o, archived); ok {
			v.Bad = append(v.Bad, f)
		}
	}
	v.Deleted = deleted(&view, n, present, archived)
	return v, nil
}

// section adds issue's anchors to into: the base's, then the tail's
// (newer by Key).
func (x *Index) section(st *state, base *baseReader, issue int, into map[string]Anchor) error {
	if err := base.section(issue, into); err != nil {
		return err
	}
	for id, a := range st.view.Obs {
		if a.Issue != issue {
			continue
		}
		if old, ok := into[id]; !ok || !old.At.After(a.At) {
			into[id] = a
		}
	}
	return nil
}

// judgeOne is the finding against one present observation: its content
// hash, then the rule (soft findings are none here, as verify reports them
// as information).
func judgeOne(view *View, o *memory.Observation, archived func(string) bool) (Finding, bool) {
	if o.Integrity() == contenthash.Tampered {
		return Finding{ID: o.ID, Code: CodeHash,
			Message: "its text changed since it was stored (the content hash no longer matches)"}, true
	}
	f, ok := view.Judge(o, false)
	if !ok || f.Soft {
		return Finding{}, false
	}
	if a, known := view.Obs[o.ID]; known && a.Hash == "" && archived(o.ID) {
		return Finding{}, false // archived and still live: a move cut short (ARCHIVE_STILL_LIVE)
	}
	return f, true
}

// deleted are the findings of issue n's anchors no file holds.
func deleted(view *View, n int, present map[string]bool, archived func(string) bool) []Finding {
	ids := make([]string, 0, len(view.Obs))
	for id, a := range view.Obs {
		if a.Issue == n && a.Hash != "" && !present[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var out []Finding
	for _, id := range ids {
		if archived(id) {
			continue
		}
		if f, ok := view.Deleted(id, view.Obs[id]); ok && !f.Soft {
			out = append(out, f)
		}
	}
	return out
}

// archived are the ids of issue n's archive file.
func (x *Index) archived(n int) map[string]bool {
	out := map[string]bool{}
	path := filepath.Join(x.MemDir, "archive", fmt.Sprintf("issue-%d-archived.json", n))
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if err != nil {
		return out
	}
	f, err := memory.ParseIssueFile(path, data)
	if err != nil {
		return out
	}
	for _, o := range f.Observations {
		out[o.ID] = true
	}
	return out
}
