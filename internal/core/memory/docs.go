package memory

import (
	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/metrics"
)

// The memory commands' --json documents, each with its keys in the order
// the scripts compare; the commands stamp their schema version.

// SearchDoc is `memory search --json`.
type SearchDoc struct {
	Count   int      `json:"count"`
	Query   string   `json:"query"`
	Results []RowDoc `json:"results"`
	// Warnings name the files left out because they could not be read
	// (also said on stderr); absent when none.
	Warnings []string `json:"warnings,omitempty"`
	jsonfile.Versioned
}

// NewSearchDoc is rows found for query as `memory search --json` lists them.
func NewSearchDoc(query string, rows []Row) *SearchDoc {
	out := RowDocs(rows)
	return &SearchDoc{Query: query, Count: len(out), Results: out}
}

// ObservationDoc is `memory get --json`.
type ObservationDoc struct {
	Observation *Observation `json:"observation"`
	// Integrity is "intact", "unhashed" (stored by the old tools) or
	// "tampered" (changed since it was stored).
	Integrity contenthash.Integrity `json:"integrity"`
	// Untrusted is set when the audit trail does not account for it.
	Untrusted *Mark `json:"untrusted,omitempty"`
	jsonfile.Versioned
}

// StatsDoc is `memory stats --json`.
type StatsDoc struct {
	jsonfile.Versioned
	Stats *Stats `json:"stats"`
	// Metrics are the measured figures of the last days (this machine's
	// event log).
	Metrics metrics.Report `json:"metrics"`
}

// RemovedDoc is `memory remove --json`.
type RemovedDoc struct {
	Removed string `json:"removed"`
	jsonfile.Versioned
}

// RestoredDoc is `memory restore --json`.
type RestoredDoc struct {
	Issue    int    `json:"issue"`
	Restored string `json:"restored"`
	jsonfile.Versioned
}

// RebuildDoc is `memory rebuild --json`.
type RebuildDoc struct {
	Rebuild RebuildReport `json:"rebuild"`
	jsonfile.Versioned
}

// StoredDoc is `memory add --json`.
type StoredDoc struct {
	jsonfile.Versioned
	Stored []Observation `json:"stored"`
	// Duplicates are the observations skipped because they repeat a
	// stored one (Existing is its id).
	Duplicates []DuplicateDoc `json:"duplicates"`
}

// NewStoredDoc is what an add stored and skipped, as `memory add --json`
// lists it.
func NewStoredDoc(stored []Observation, dups []Duplicate) *StoredDoc {
	return &StoredDoc{Stored: jsonfile.List(stored), Duplicates: DuplicateDocs(dups)}
}
