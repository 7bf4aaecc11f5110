package hookcmd

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// renamedFrom is the id the clarification id was first given, when a
// merge renumbered it after an id collision ("" otherwise).
func (a *App) renamedFrom(id string) string {
	issue, err := validate.ClarificationID(id)
	if err != nil {
		return ""
	}
	l, err := a.Ledgers().Load(issue)
	if err != nil || l == nil {
		return ""
	}
	r := l.Find(id)
	if r == nil {
		return ""
	}
	var from string
	if raw := r.ExtraValue(statemerge.RenamedFromKey); raw == nil || json.Unmarshal(raw, &from) != nil || from == id {
		return ""
	}
	return from
}

// followRename adds to entries (the lines naming id) the lines that named
// the record under its first id, old: in the trail that renamed it, up
// to the line where the new id first appears. Lines of that trail after
// it, and of other trails, name the record that kept old.
func followRename(entries, aliased []audit.TrailEntry, id, old string) ([]audit.TrailEntry, string) {
	if len(entries) == 0 {
		return entries, ""
	}
	first := entries[0]
	var out []audit.TrailEntry
	for _, e := range aliased {
		if e.Trail == first.Trail && e.Time <= first.Time && !contains(entries, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return entries, ""
	}
	out = append(out, entries...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	return out, fmt.Sprintf("%s was %s until a merge renumbered it (%s): the %d lines before name it %s",
		id, old, first.Time, len(out), old)
}

func contains(list []audit.TrailEntry, e audit.TrailEntry) bool {
	for _, x := range list {
		if x.Trail == e.Trail && x.Time == e.Time && x.Op == e.Op && x.Actor == e.Actor {
			return true
		}
	}
	return false
}
