package statemerge

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func TestRenamedFromIDWithoutARecord(t *testing.T) {
	store := &ledger.Store{WS: workspace.Workspace{Root: t.TempDir()}, Locks: lock.New(lock.Options{})}
	for _, id := range []string{"", "obs-1", "CLR-7-001"} { // not a clarification id; no ledger
		if got := RenamedFromID(store, id); got != "" {
			t.Errorf("RenamedFromID(%q) = %q", id, got)
		}
	}
}
