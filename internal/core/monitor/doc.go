package monitor

import (
	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// Doc is `monitor --json`: a check's counts, findings and actions, its
// keys in the order the scripts compare.
type Doc struct {
	Actions []Action `json:"actions"`
	// ArtifactNotices are the upstream changes this check announced
	// (NotifyStale); StaleArtifacts every stale artifact now.
	ArtifactNotices []ArtifactNotice `json:"artifactNotices"`
	CheckedAt       string           `json:"checkedAt"`
	Deadlocked      []DeadlockItem   `json:"deadlocked"`
	Issues          int              `json:"issues"`
	Open            int              `json:"open"`
	jsonfile.Versioned
	Stale          []Item             `json:"stale"`
	StaleArtifacts []artifact.Finding `json:"staleArtifacts"`
	Stuck          []Item             `json:"stuck"`
	// Undelivered: answers no session of the requester received within
	// the SLA (issue 34).
	Undelivered []UndeliveredItem `json:"undelivered"`
	Warnings    []string          `json:"warnings"`
}

// Doc is the check as `monitor --json` prints it.
func (r *Report) Doc() *Doc {
	f := r.Findings()
	return &Doc{CheckedAt: clock.Format(r.CheckedAt), Issues: len(r.Issues), Open: len(r.Open),
		Stale: f.Stale, Stuck: f.Stuck, Deadlocked: f.Deadlocked, Actions: jsonfile.List(r.Actions), Warnings: f.Warnings,
		ArtifactNotices: jsonfile.List(r.ArtifactNotices), StaleArtifacts: jsonfile.List(r.StaleArtifacts),
		Undelivered: jsonfile.List(r.Undelivered)}
}

// StaleDoc is `clarify stale --json`: the records StaleAndStuck returns.
type StaleDoc struct {
	jsonfile.Versioned
	Stale []ledger.Record `json:"stale"`
	Stuck []ledger.Record `json:"stuck"`
}

// NewStaleDoc is StaleAndStuck's records as `clarify stale --json`
// prints them.
func NewStaleDoc(stale, stuck []ledger.Record) *StaleDoc {
	return &StaleDoc{Stale: jsonfile.List(stale), Stuck: jsonfile.List(stuck)}
}
