package agentstatus

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// Doc is `state --json`: every agent's status by name.
type Doc struct {
	Agents map[string]Status `json:"agents"`
	jsonfile.Versioned
}
