package doctor

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/render"
)

// Doc is `doctor --json`: the findings and their counts.
type Doc struct {
	// Error is set when a finding failed (exit 1), as in every failure's
	// document.
	Error    *errcode.Body `json:"error,omitempty"`
	Fails    int           `json:"fails"`
	Findings []Finding     `json:"findings"`
	OK       bool          `json:"ok"`
	Root     string        `json:"root"`
	jsonfile.Versioned
	Warns int `json:"warns"`
}

// NewDoc counts the findings of the workspace at root and words the
// failure when one failed (nil: none did).
func NewDoc(root string, findings []Finding) (*Doc, *errcode.Error) {
	doc := &Doc{Findings: jsonfile.List(findings), Root: root}
	doc.Fails, doc.Warns = Count(findings)
	doc.OK = doc.Fails == 0
	if doc.OK {
		return doc, nil
	}
	failure := errcode.New(errcode.ChecksFailed, "doctor: %d finding%s failed", doc.Fails, plural(doc.Fails)).
		WithHint("run each fix listed, then `agentx-hook doctor` again")
	doc.Error = errcode.BodyOf(failure)
	return doc, failure
}

// Text is the findings for people, one line each with its fix under it,
// then the counts; st colours the failures and warnings.
func (d *Doc) Text(st render.Style) string {
	var b strings.Builder
	for _, f := range d.Findings {
		status := f.Status
		switch f.Status {
		case StatusFail:
			status = st.Red(status)
		case StatusWarn:
			status = st.Yellow(status)
		}
		pad := strings.Repeat(" ", max(0, 5-len(f.Status)))
		fmt.Fprintf(&b, "%s%s %-13s %s\n", status, pad, f.Check, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(&b, "%19s %s\n", "fix:", f.Fix)
		}
	}
	fmt.Fprintf(&b, "%d failed, %d warnings, %d findings\n", d.Fails, d.Warns, len(d.Findings))
	return b.String()
}
