// Package recalljournal owns the recall-count journal of the memory
// pipeline: `.agentx/memory/pending/recall-pending.jsonl`, one JSON array
// of observation IDs per recall.
//
// Why a journal: `hook start` must answer in tens of milliseconds, and
// rewriting every recalled observation's issue file (fsynced) would cost
// more than the rest of the hook together. So a recall appends its IDs
// here (one O_APPEND write), scoring adds the journal's counts, and `hook
// finish` (which has time once its capture is spooled) or `memory compact`
// folds them into the store. A crash may lose or repeat an increment:
// recall counts are a soft ranking signal, never data.
//
// Why in the pending directory: `hook start` creates the journal, and the
// fold renames and removes it (with its lock file); in the memory
// directory itself each of these changed the stat the search's freshness
// gate keys on (memory/fresh.go), so the next search and hook start swept
// every issue file (20,000 stats at 1M observations). The journal of the
// old layout (Old) is still counted and folded, never written.
package recalljournal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// MaxBytes is the size past which `hook start` folds the journal itself:
// about 250 starts with no session end between them (never in normal use,
// where each session's `hook finish` folds).
const MaxBytes = 256 << 10

// asideSuffix names the batch being folded: renamed aside under the lock,
// so new recalls start a fresh journal meanwhile.
const asideSuffix = ".applying"

// Journal is the recall journal at Path.
type Journal struct {
	Path  string
	Locks *lock.Locker
	// Old is where an earlier agentx kept the journal ("": nowhere): its
	// recalls count, and the next fold takes them in and removes it.
	Old string
}

// New returns the journal at path; locks guards folding (appends need no
// lock: each is one O_APPEND write of a whole line).
func New(path string, locks *lock.Locker) *Journal {
	return &Journal{Path: path, Locks: locks}
}

// Append records one recall: one line, one O_APPEND write.
func (j *Journal) Append(ids []string) error {
	line, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(j.Path), 0o755); err != nil {
		return err
	}
	f, err := atomicfile.OpenAppend(j.Path) // RDWR: Terminated reads the last byte
	if err != nil {
		return err
	}
	// A line torn by a crash is ended first, so this one still parses.
	_, err = f.Write(atomicfile.Terminated(f, append(line, '\n')))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Pending counts the journalled recalls of each ID, including a batch
// being folded in right now. Lines that do not parse are skipped.
func (j *Journal) Pending() map[string]int {
	counts := map[string]int{}
	for _, p := range []string{j.Path, j.Path + asideSuffix, j.Old, j.Old + asideSuffix} {
		if p == "" || p == asideSuffix {
			continue
		}
		if data, err := atomicfile.ReadRegular(p, atomicfile.StateLimit); err == nil {
			count(data, counts)
		}
	}
	return counts
}

// Full reports whether the journal has grown past MaxBytes.
func (j *Journal) Full() bool {
	fi, err := os.Stat(j.Path)
	return err == nil && fi.Size() > MaxBytes
}

func count(data []byte, counts map[string]int) {
	for _, line := range bytes.Split(data, []byte("\n")) {
		var ids []string
		if json.Unmarshal(line, &ids) == nil {
			for _, id := range ids {
				counts[id]++
			}
		}
	}
}

// Counter takes recall counts into the store (memory.Store).
type Counter interface {
	AddRecallCounts(ctx context.Context, counts map[string]int) error
}

// Fold adds the journal's counts to the store: the journal is renamed
// aside under its lock, applied, then removed. A batch left aside by a
// crash is applied first. On failure the batch stays for the next fold.
func (j *Journal) Fold(ctx context.Context, store Counter) error {
	if j.Old != "" && (exists(j.Old) || exists(j.Old+asideSuffix)) {
		if err := fold(ctx, j.Locks, j.Old, store); err != nil {
			return err
		}
	}
	return fold(ctx, j.Locks, j.Path, store)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// fold is Fold of the journal at path.
func fold(ctx context.Context, locks *lock.Locker, path string, store Counter) error {
	aside := path + asideSuffix
	if !exists(path) && !exists(aside) {
		return nil // nothing to fold (nor, maybe, a directory to lock in)
	}
	err := locks.With(ctx, path, func(*lock.Lock) error {
		if _, err := os.Stat(aside); errors.Is(err, fs.ErrNotExist) {
			if err := os.Rename(path, aside); errors.Is(err, fs.ErrNotExist) {
				return nil
			} else if err != nil {
				return err
			}
		}
		data, err := atomicfile.ReadRegular(aside, atomicfile.StateLimit)
		if err != nil {
			return err
		}
		counts := map[string]int{}
		count(data, counts)
		// Past the score's saturation (10 recalls) more counts change no
		// ranking, but they are the store's history: add them all, one
		// rewrite per issue file.
		if err := store.AddRecallCounts(ctx, counts); err != nil {
			return err
		}
		return os.Remove(aside)
	})
	if err != nil {
		return fmt.Errorf("recall journal: %w", err)
	}
	return nil
}
