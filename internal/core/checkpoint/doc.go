package checkpoint

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// The checkpoint commands' --json documents: the results themselves,
// with the ref they live on where the command names it.

// CreateDoc is `checkpoint create --json`.
type CreateDoc struct {
	*Result
	Ref string `json:"ref"`
	jsonfile.Versioned
}

// ListDoc is `checkpoint list --json`.
type ListDoc struct {
	Ref         string       `json:"ref"`
	Checkpoints []Checkpoint `json:"checkpoints"`
	jsonfile.Versioned
}

// ShowDoc is `checkpoint show --json`.
type ShowDoc struct {
	*Diff
	jsonfile.Versioned
}

// RestoreDoc is `checkpoint restore --json`.
type RestoreDoc struct {
	*RestoreResult
	jsonfile.Versioned
}
