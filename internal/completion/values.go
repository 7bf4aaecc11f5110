package completion

import (
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// Sources are where the workspace's values come from; each is read only
// for the kind that needs it.
type Sources struct {
	Ledgers      *ledger.Store
	MemoryIssues func() ([]int, error)
	Config       func() (*config.Set, error)
	// Artifacts lists the artifact ids of every ledger (nil: none).
	Artifacts func() ([]string, error)
}

// Values is what CompleteCommand offers for kind: "ids" (the open
// clarifications, for answer, ask, resolve, escalate, abandon, show),
// "agents" (the workflows' agents) or "issues" (every issue a ledger or
// the memory store knows). A file that does not load offers nothing.
func Values(kind string, src Sources) []string {
	var out []string
	switch kind {
	case "ids":
		for _, r := range records(src.Ledgers) {
			if r.Status.Open() {
				out = append(out, r.ID)
			}
		}
	case "artifacts":
		if src.Artifacts != nil {
			out, _ = src.Artifacts()
		}
	case "agents":
		if cfg, err := src.Config(); err == nil {
			out = cfg.KnownAgentNames()
		}
	case "issues":
		seen := map[int]bool{}
		for _, r := range records(src.Ledgers) {
			seen[r.IssueNumber] = true
		}
		if issues, err := src.MemoryIssues(); err == nil {
			for _, n := range issues {
				seen[n] = true
			}
		}
		for n := range seen {
			out = append(out, strconv.Itoa(n))
		}
	}
	return out
}

// records are the clarifications of every ledger that loads.
func records(s *ledger.Store) []ledger.Record {
	loaded, err := s.LoadAll()
	if err != nil {
		return nil
	}
	var recs []ledger.Record
	for _, l := range loaded {
		if l.Err == nil {
			recs = append(recs, l.Ledger.Clarifications...)
		}
	}
	return recs
}
