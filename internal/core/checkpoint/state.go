package checkpoint

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
	"github.com/agentx-dev/agentx/internal/core/statesync"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// StateOptions are what OpenState needs besides the workspace: how agentx
// lays out its state is fixed here, who and when come from the caller.
type StateOptions struct {
	// Now is the commit time and the revival stamp.
	Now func() time.Time
	// By names who restores (in a revival mark): $AGENTX_AGENT, else "cli".
	By string
	// Pause, when positive, is slept after each restored file (a crash
	// test kills the process in the middle of a restore).
	Pause time.Duration
}

// manifestRel is the memory manifest, relative to .agentx/.
const manifestRel = "memory/manifest.json"

// OpenState opens ws's checkpoint history as agentx's commands use it:
// the manifest is rebuilt rather than copied back, the audit trail is
// never rolled back, and what a restore revives is marked so.
func OpenState(ws workspace.Workspace, locks *lock.Locker, opt StateOptions) (*Store, error) {
	s, err := Open(ws, locks)
	if err != nil {
		return nil, err
	}
	s.Now = opt.Now
	trailDir := ws.StateDir()
	s.AuditHead = func() string {
		h, _ := audit.Head(trailDir)
		return h
	}
	// The manifest indexes the issue files: after a restore it is brought
	// in line with them (memory's Reindex, or Rebuild) instead of copied,
	// which would leave its search index of another generation and cost a
	// whole rebuild.
	s.Derived = func(rel string) bool { return rel == manifestRel }
	// The audit trail is append-only: a restore is one more line in it,
	// never a rollback of it.
	s.Kept = func(rel string) bool { return path.Dir(rel) == "state" && audit.IsFileName(path.Base(rel)) }
	// What a restore brings back that was removed since (memory remove,
	// compaction) is marked revived, or the next sync or merge would
	// apply the removal's tombstone again (docs/merge.md).
	s.Adjust = func(rel string, restored, current []byte) ([]byte, error) {
		if ok, _ := statemerge.Classify(rel); !ok {
			return restored, nil
		}
		return statemerge.Revive(rel, restored, current, clock.Format(opt.Now()), opt.By,
			"checkpoint restore "+shorten.Runes(s.RestoreID, 12))
	}
	if opt.Pause > 0 {
		s.BetweenFiles = func() { time.Sleep(opt.Pause) }
	}
	return s, nil
}

// reindexMax is how many restored memory issue files are reindexed one by
// one; past it a whole rebuild is cheaper.
const reindexMax = 100

// RebuildDerived brings the derived indexes in line with restored files:
// the memory manifest and search index are rebuilt from the issue files,
// the monitor's index is dropped (its next scan writes it again). What
// fails is returned as warnings: the restored files are right, and the
// indexes rebuild themselves when found stale.
func RebuildDerived(ctx context.Context, ws workspace.Workspace, store *memory.Store, res *RestoreResult) []string {
	var warnings []string
	issues := statesync.MemoryIssues(res.Written, res.Removed)
	// A manifest that differs from the checkpoint's while no issue file was
	// restored still describes the issue files there are: only one that is
	// gone needs the rebuild (a restore of ledgers alone cost a whole
	// rebuild of the memory index otherwise, 1.5 s over 100K observations).
	_, statErr := os.Stat(store.ManifestPath())
	if len(issues) > 0 || len(res.Derived) > 0 && statErr != nil {
		var err error
		if len(issues) > reindexMax || len(issues) == 0 {
			_, err = store.Rebuild(ctx)
		} else {
			err = store.Reindex(ctx, issues)
		}
		if err != nil {
			warnings = append(warnings, "restored, but the memory index was not rebuilt: "+err.Error()+" (run `agentx-hook memory rebuild`)")
		}
	}
	if err := os.Remove(filepath.Join(ws.ClarificationsDir(), workspace.MonitorIndexName)); err != nil && !os.IsNotExist(err) {
		warnings = append(warnings, "restored, but the monitor index was not dropped: "+err.Error())
	}
	return warnings
}
