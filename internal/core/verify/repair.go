package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/checkpoint"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Done is one repair performed (or attempted: Err says why it failed).
type Done struct {
	Code   string `json:"code"`
	Path   string `json:"path"`
	Action string `json:"action"`
	Err    string `json:"error,omitempty"`
}

// Repairable reports whether rep holds a problem Repair acts on.
func Repairable(rep *Report) bool {
	for _, p := range rep.Problems {
		if p.Repair != "" {
			return true
		}
	}
	return false
}

// Repair performs what can be derived from the files without guessing, for
// the problems of rep that name a repair: the manifest and search index
// rebuilt from the issue files (once, whatever number of rows were wrong),
// a stale monitor index deleted, a dead process's lock taken over and
// released (the lock package's safe takeover), a dead writer's temporaries
// removed under the lock of the file they were for. Ledger records and
// observations are never touched.
func Repair(ctx context.Context, ws workspace.Workspace, locks *lock.Locker, rep *Report) []Done {
	var out []Done
	rebuilt := false
	for _, p := range rep.Problems {
		if p.Repair == "" {
			continue
		}
		abs := filepath.Join(ws.Root, filepath.FromSlash(p.Path))
		d := Done{Code: p.Code, Path: p.Path, Action: p.Repair}
		var err error
		switch p.Code {
		case CodeMonitorIndexStale:
			err = os.Remove(abs)
		case CodeRestoreLost:
			var cs *checkpoint.Store
			if cs, err = checkpoint.Open(ws, locks); err == nil {
				err = cs.RecordRestore(ctx, p.ID, &audit.Trail{Dir: ws.StateDir(), Locks: locks})
			}
		case CodeCheckpointLost:
			var cs *checkpoint.Store
			if cs, err = checkpoint.Open(ws, locks); err == nil {
				err = cs.RecordLost(ctx, p.ID, &audit.Trail{Dir: ws.StateDir(), Locks: locks})
			}
		case CodeGitTemp:
			host, _ := os.Hostname()
			if err = removableGitTemp(abs, time.Now(), GitDirs(ws.Root), host); err == nil {
				err = os.Remove(abs)
			}
		case CodeDeadLock:
			target := strings.TrimSuffix(abs, ".lock")
			var lk *lock.Lock
			if lk, err = locks.Acquire(ctx, target); err == nil {
				err = lk.Release()
			}
		case CodeDeadTemp:
			var ok bool
			if ok, err = removeDeadTemp(ctx, locks, abs); !ok {
				continue
			}
		default: // the manifest and the search index
			if rebuilt {
				continue
			}
			rebuilt = true
			d.Path, d.Action = workspace.Dir+"/memory/manifest.json", "rebuilt the manifest and the search index from the issue files"
			var rr memory.RebuildReport
			// Rebuilt as it is: a store without a manifest stays so.
			st := memory.New(ws.MemoryDir(), locks, nil)
			st.FileBase = !st.ManifestBase()
			// With the trail: a dead writer's pending marker the rebuild
			// settles may owe its audit line (memory's settleIntent).
			st.Audit = &audit.Trail{Dir: ws.StateDir(), Locks: locks}
			rr, err = st.Rebuild(ctx)
			if err == nil {
				d.Action = fmt.Sprintf("%s (%d entries from %d issue files)", d.Action, rr.Entries, rr.IssueFiles)
			}
		}
		if err != nil {
			d.Err = err.Error()
		}
		out = append(out, d)
	}
	return out
}

// removeDeadTemp removes an atomic write's temporary left by a dead
// writer: alone when its name carries the writer's pid (its death checked
// again), else with the others of its file under the file's lock; ok is
// false for a name that is no temporary's.
func removeDeadTemp(ctx context.Context, locks *lock.Locker, abs string) (ok bool, err error) {
	if pid, named := atomicfile.TempPID(filepath.Base(abs)); named {
		if alive(pid) {
			return true, fmt.Errorf("not removed: process %d runs again", pid)
		}
		if err := os.Remove(abs); err != nil && !os.IsNotExist(err) {
			return true, err
		}
		return true, nil
	}
	target, ok := tempTarget(abs)
	if !ok {
		return false, nil
	}
	return true, atomicfile.WithLock(ctx, locks, target, func(*lock.Lock) error {
		atomicfile.RemoveTemps(target)
		return nil
	})
}

// tempTarget is the file an atomic write's temporary `.NAME.tmp-XXXX` was
// for.
func tempTarget(tmp string) (string, bool) {
	base := filepath.Base(tmp)
	name, ok := strings.CutPrefix(base, ".")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(name, ".tmp-")
	if i <= 0 {
		return "", false
	}
	return filepath.Join(filepath.Dir(tmp), name[:i]), true
}
