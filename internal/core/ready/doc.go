package ready

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// Doc is `ready --json`.
type Doc struct {
	Issues []*Issue `json:"issues"`
	jsonfile.Versioned
}
