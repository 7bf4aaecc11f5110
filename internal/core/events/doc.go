package events

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// Doc is `events --json`.
type Doc struct {
	Events []Event `json:"events"`
	jsonfile.Versioned
}

// NewDoc lists evs as `events --json` prints them.
func NewDoc(evs []Event) *Doc { return &Doc{Events: jsonfile.List(evs)} }
