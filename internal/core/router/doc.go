package router

import (
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// Doc is the --json document of a clarify operation.
type Doc struct {
	Answer        string         `json:"answer,omitempty"`
	Clarification *ledger.Record `json:"clarification"`
	Escalated     bool           `json:"escalated"`
	ID            string         `json:"id"`
	Round         int            `json:"round"`
	jsonfile.Versioned
	Status ledger.Status `json:"status"`
}

// Doc is the operation's outcome as a clarify command's --json prints it.
func (r *Result) Doc() *Doc {
	rec := &r.Record
	return &Doc{ID: rec.ID, Status: rec.Status, Round: rec.Round, Clarification: rec,
		Escalated: r.Escalated, Answer: r.Answer}
}
