package intake

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// Line is the one line a capture reports to the agent or the person who
// ran it.
func (r *Report) Line() string {
	switch {
	case r.Duplicate:
		// Claim also refuses an entry another hook is processing right now.
		return fmt.Sprintf("Already captured: this %s was processed before, or is being processed by another hook (once per session turn).", r.Source)
	case r.Deferred:
		return fmt.Sprintf("Spooled the %s for issue #%d; the next `hook start` finishes the capture.", r.Source, r.Issue)
	}
	var parts []string
	for _, c := range memory.Categories() {
		if n := r.ByCategory[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, c))
		}
	}
	s := fmt.Sprintf("Stored %d observation(s) for %s on issue #%d", len(r.IDs), r.Agent, r.Issue)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	s += fmt.Sprintf(" from a %s (%s read)", r.Source, shorten.Bytes(r.SourceBytes))
	if r.Known > 0 {
		s += fmt.Sprintf("; %d already known", r.Known)
	}
	if r.Leftover {
		s += "; left spooled by an earlier hook (cut short, or deferred past the host's session-end budget)"
	}
	return s + "."
}

// StoredLines are the stored observations, one line each, as a capture
// lists them under its Line.
func (r *Report) StoredLines() []string {
	out := make([]string, 0, len(r.Stored))
	for _, o := range r.Stored {
		out = append(out, fmt.Sprintf("  %s  %s: %s", o.ID, o.Category, o.Summary))
	}
	return out
}
