package verify

import (
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// Doc is `verify --json`.
type Doc struct {
	Counts Counts `json:"counts"`
	// Error is set when verify fails, as in every failure document.
	Error    *errcode.Body `json:"error,omitempty"`
	Errors   int           `json:"errors"`
	OK       bool          `json:"ok"`
	Problems []Problem     `json:"problems"`
	Repairs  []Done        `json:"repairs,omitempty"`
	// Ref and Commit name what --state-branch checked.
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	jsonfile.Versioned
}

// Doc is the report as `verify --json` prints it, with the repairs made
// before it and its failure (nil: it holds).
func (r *Report) Doc(repairs []Done, failure *errcode.Error) *Doc {
	n := r.Errors()
	return &Doc{Counts: r.Counts, Errors: n, OK: n == 0, Problems: r.Problems, Repairs: repairs,
		Error: errcode.BodyOf(failure)}
}
