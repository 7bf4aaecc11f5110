package checkpoint

import (
	"cmp"
	"context"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
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
	// Keep is the retention ([checkpoints] keep).
	Keep int
	// AuditPause, when positive, is slept between a checkpoint's ref
	// update and its audit line (a crash test kills the process there).
	AuditPause time.Duration
	// Audit appends a line to the audit trail; Warn reports what went
	// wrong but does not stop a command.
	Audit func(context.Context, audit.Entry)
	Warn  func(string)
}

// WithEnv is o with who restores from getenv ($AGENTX_AGENT, else "cli")
// and the crash tests' pauses ($AGENTX_TEST_RESTORE_PAUSE_MS,
// $AGENTX_TEST_CHECKPOINT_PAUSE_MS).
func (o StateOptions) WithEnv(getenv func(string) string) StateOptions {
	o.By = cmp.Or(getenv("AGENTX_AGENT"), "cli")
	if ms, err := strconv.Atoi(getenv("AGENTX_TEST_RESTORE_PAUSE_MS")); err == nil && ms > 0 {
		o.Pause = time.Duration(ms) * time.Millisecond
	}
	if ms, err := strconv.Atoi(getenv("AGENTX_TEST_CHECKPOINT_PAUSE_MS")); err == nil && ms > 0 {
		o.AuditPause = time.Duration(ms) * time.Millisecond
	}
	return o
}

// History is the checkpoint history as agentx's commands use it: what it
// makes and restores is recorded in the audit trail, and a checkpoint the
// trail does not name is not restored unless forced.
type History struct {
	*Store
	opt StateOptions
}

// manifestRel is the memory manifest, relative to .agentx/.
const manifestRel = "memory/manifest.json"

// OpenState opens ws's checkpoint history as agentx's commands use it:
// the manifest is rebuilt rather than copied back, the audit trail is
// never rolled back, and what a restore revives is marked so.
func OpenState(ws workspace.Workspace, locks *lock.Locker, opt StateOptions) (*History, error) {
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
	return &History{Store: s, opt: opt}, nil
}

// Take makes a checkpoint with message (its reason) and records it in the
// audit trail (no line when the state was unchanged: nothing happened).
func (h *History) Take(ctx context.Context, message string) (*Result, error) {
	res, err := h.Create(ctx, message, h.opt.Keep)
	if err != nil {
		return nil, err
	}
	h.audit(ctx, res, message)
	return res, nil
}

func (h *History) audit(ctx context.Context, res *Result, message string) {
	if e, ok := CreateEntry(res, message); ok {
		if h.opt.AuditPause > 0 {
			time.Sleep(h.opt.AuditPause)
		}
		h.opt.Audit(ctx, e)
		h.clearPending(res.Short)
	}
}

// Listed is the history, newest first, with those the audit trail does
// not name marked Unaudited, and how many they are.
func (h *History) Listed() ([]Checkpoint, int, error) {
	list, err := h.List()
	if err != nil {
		return nil, 0, err
	}
	return list, ReadTrail(h.WS.StateDir()).MarkUnaudited(list), nil
}

// RestoreAudited restores checkpoint id (dry: says what it would do) as
// `checkpoint restore` does: refused for a checkpoint the audit trail does
// not name unless forced; the present state checkpointed first; the
// derived indexes of store (opened only when needed) brought in line; the
// restore recorded.
func (h *History) RestoreAudited(ctx context.Context, id string, dryRun, force bool, store func() *memory.Store) (*RestoreResult, error) {
	target, err := h.Get(id)
	if err != nil {
		return nil, err
	}
	if _, made := ReadTrail(h.WS.StateDir()).At(target); !made {
		if !force && h.Pending(target) {
			return nil, errcode.New(errcode.InvalidInput, "%s", UnauditedMessage(target)).
				WithHint("agentx made it and was killed before its line: `agentx-hook verify --repair` records the line, then restore it")
		}
		if !force {
			return nil, errcode.New(errcode.InvalidInput, "%s", ForgedMessage(target)).
				WithHint("`git show " + target.Commit + "` shows who wrote it; `agentx-hook checkpoint restore " + target.Short + " --force` restores it anyway")
		}
		h.opt.Warn(UnauditedMessage(target) + "; restoring it as --force asks")
	}
	before := "before checkpoint restore " + target.Short
	if !dryRun {
		// The mark before any file is put back (pending.go).
		if err := h.markRestore(target); err != nil {
			return nil, err
		}
	}
	res, err := h.Restore(ctx, id, dryRun, before, h.opt.Keep)
	if err != nil || dryRun {
		if !dryRun && (res == nil || !res.Changed()) {
			h.clearPending(restoreMark)
		}
		return res, err
	}
	if res.Before != nil {
		h.audit(ctx, res.Before, before)
	}
	if res.Changed() || len(res.Derived) > 0 {
		for _, w := range RebuildDerived(ctx, h.WS, store(), res) {
			h.opt.Warn(w)
		}
	}
	h.opt.Audit(ctx, RestoreEntry(res))
	h.clearPending(restoreMark)
	return res, nil
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
	// rebuild of the memory index otherwise, 1.5 s over 100K observations),
	// and only in a store that keeps one (a file base has none).
	_, statErr := os.Stat(store.ManifestPath())
	if len(issues) > 0 || len(res.Derived) > 0 && statErr != nil && !store.FileBase {
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
