package ready

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/render"
)

// Line is the issue as `ready` prints it: number, title and status, who
// it waits for (a person, or an agent's answer), else "ready".
func (ri *Issue) Line(st render.Style) string {
	line := fmt.Sprintf("#%-5d", ri.Issue)
	if ri.Title != "" {
		line += " " + ri.Title
	}
	if ri.Status != "" {
		line += " (" + ri.Status + ")"
	}
	if len(ri.EscalatedLines) > 0 {
		line += " " + st.Red("[WAITING FOR A PERSON]") + " " + strings.Join(ri.EscalatedLines, "; ")
	}
	if ri.Stage != nil {
		// The stage names the blocking clarifications itself.
		line += " " + ri.Stage.String()
	} else if len(ri.Waits) > 0 {
		line += " " + st.Red("[BLOCKED: Clarification pending]") + " " + strings.Join(ri.Waits, "; ")
	}
	switch {
	case ri.Unreadable:
		line += " " + st.Red("[UNREADABLE: its ledger does not parse]")
	case !ri.Blocked:
		line += " " + st.Green("ready")
	}
	for _, f := range ri.StaleArtifacts {
		line += "\n       " + st.Red("[STALE]") + " " + f.String()
	}
	return line
}

// Text is `ready`'s text: one line per issue, who it waits for or ready.
func (r *Report) Text(st render.Style) string {
	if len(r.Issues) == 0 {
		return "No issues known locally.\n"
	}
	var b strings.Builder
	for _, ri := range r.Issues {
		b.WriteString(ri.Line(st) + "\n")
	}
	return b.String()
}
