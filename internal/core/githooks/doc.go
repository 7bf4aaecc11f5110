package githooks

import (
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// ChangeDoc is `hooks install|uninstall --json`.
type ChangeDoc struct {
	HooksDir    string             `json:"hooksDir"`
	HooksPath   string             `json:"hooksPath"`
	MergeDriver *MergeDriverStatus `json:"mergeDriver"`
	Notes       []string           `json:"notes"`
	jsonfile.Versioned
	Steps []Step `json:"steps"`
}

// NewChangeDoc is an install or uninstall at loc as `hooks --json` prints it.
func NewChangeDoc(loc Location, steps []Step, notes []string, md *MergeDriverStatus) *ChangeDoc {
	return &ChangeDoc{HooksDir: loc.Dir, HooksPath: loc.HooksPath, Steps: steps, Notes: jsonfile.List(notes), MergeDriver: md}
}

// StatusDoc is `hooks status --json`.
type StatusDoc struct {
	Hooks       []HookStatus       `json:"hooks"`
	HooksDir    string             `json:"hooksDir"`
	HooksPath   string             `json:"hooksPath"`
	MergeDriver *MergeDriverStatus `json:"mergeDriver"`
	jsonfile.Versioned
}

// ChangeLines are an install's or uninstall's lines for people: the
// directory, then one line per hook and the merge driver's.
func ChangeLines(loc Location, steps []Step, md *MergeDriverStatus) []string {
	out := []string{"Hooks directory: " + loc.Dir}
	for _, st := range steps {
		out = append(out, fmt.Sprintf("  %-12s %s", st.Hook, st.Summary()))
	}
	return append(out, md.Lines()...)
}

// StatusLines are `hooks status`'s lines: the directory (and
// core.hooksPath when set), then one line per hook and the merge driver's.
func StatusLines(loc Location, hooks []HookStatus, md *MergeDriverStatus) []string {
	first := "Hooks directory: " + loc.Dir
	if loc.HooksPath != "" {
		first += " (core.hooksPath = " + loc.HooksPath + ")"
	}
	out := []string{first}
	for _, h := range hooks {
		out = append(out, fmt.Sprintf("  %-12s %s", h.Hook, h.Summary()))
	}
	return append(out, md.Lines()...)
}

// Lines is the merge driver's line in hooks' and setup's lists (none
// when st is nil).
func (st *MergeDriverStatus) Lines() []string {
	if st == nil {
		return nil
	}
	return []string{fmt.Sprintf("  %-12s %s", "merge-driver", st.Summary())}
}

// AuditEntry is the audit line of an install or uninstall (name) in dir:
// each hook with what was done to it.
func AuditEntry(name, dir string, steps []Step) audit.Entry {
	var hooks []string
	for _, st := range steps {
		hooks = append(hooks, st.Hook+":"+string(st.Kind))
	}
	return audit.Entry{Op: "hooks." + name, IDs: hooks, Detail: dir}
}
