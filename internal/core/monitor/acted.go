package monitor

import "strings"

// Acted is "escalated CLR-42-001, marked stale CLR-7-002", or "" when the
// check changed nothing: the one line a git hook says after a check.
func (r *Report) Acted() string {
	var parts []string
	for _, act := range r.Actions {
		if act.Kind == ActSkipped || act.Kind == ActContinued {
			continue
		}
		parts = append(parts, strings.ReplaceAll(act.Kind, "-", " ")+" "+act.ID)
	}
	return strings.Join(parts, ", ")
}
