package initws

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// File is one file init created, kept or updated, as `init --json` lists it.
type File struct {
	Path   string `json:"path"`
	Action string `json:"action"` // created, kept or updated
}

// Doc is `init --json`.
type Doc struct {
	Files []File `json:"files"`
	Mode  string `json:"mode,omitempty"`
	Root  string `json:"root"`
	jsonfile.Versioned
	// Tracked: in GitHub Mode, the state files the current branch still
	// tracks and the commands that stop tracking them (after
	// `agentx-hook sync --init-from HEAD`).
	Tracked
}
