package events

import (
	"strings"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// Doc is `events --json`.
type Doc struct {
	Events []Event `json:"events"`
	jsonfile.Versioned
}

// NewDoc lists evs as `events --json` prints them.
func NewDoc(evs []Event) *Doc { return &Doc{Events: jsonfile.List(evs)} }

// Text is `events`'s text: one line per event, oldest first.
func (d *Doc) Text() string {
	if len(d.Events) == 0 {
		return "No events.\n"
	}
	var b strings.Builder
	for _, e := range d.Events {
		b.WriteString(e.Line() + "\n")
	}
	return b.String()
}
