package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// RestoreResult is what a restore did (or, dry, would do).
type RestoreResult struct {
	Target Checkpoint `json:"target"`
	// Before is the checkpoint of the state the restore replaced: restoring
	// it undoes the restore. Empty on a dry run.
	Before *Result `json:"before,omitempty"`
	// Written are the files replaced or created, Removed the durable files
	// the checkpoint did not have; relative to .agentx/.
	Written []string `json:"written"`
	Removed []string `json:"removed"`
	// Derived are the files that differ but are left for the caller to
	// rebuild (Store.Derived).
	Derived []string `json:"derived"`
	DryRun  bool     `json:"dryRun"`
}

// Changed reports whether the restore touched any file.
func (r *RestoreResult) Changed() bool { return len(r.Written)+len(r.Removed) > 0 }

// Restore puts the durable state of checkpoint id back. It first takes the
// lock of every file it will change without waiting (the Store's Locker
// should have a short Wait): one held by a live process refuses the whole
// restore with LOCK_TIMEOUT naming it, before anything changed. Holding
// them all, it checkpoints the present state (message before), then
// replaces each file atomically and removes the durable files the
// checkpoint did not have. A crash leaves each file old or restored, never
// half-written, and the checkpoint of the state before. Derived indexes are
// the caller's to rebuild.
func (s *Store) Restore(ctx context.Context, id string, dryRun bool, before string, keep int) (*RestoreResult, error) {
	target, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	want, err := s.repo.Files(gitstore.NewHash(target.Tree))
	if err != nil {
		return nil, err
	}
	res := &RestoreResult{Target: target, DryRun: dryRun}
	s.RestoreID = target.ID
	if res.Written, res.Removed, res.Derived, err = s.plan(ctx, want); err != nil {
		return nil, err
	}
	if dryRun {
		// What the restore would refuse (a file that does not parse in the
		// checkpoint) is refused here too, not listed as "would restore".
		if err := s.prepared(want, res.Written); err != nil {
			return nil, err
		}
		return res, nil
	}
	if !res.Changed() {
		return res, nil
	}
	// The flock of the event log first, as an appender takes it before
	// the log's lock file to trim: the other order could deadlock.
	release, err := s.holdAppended(ctx, append(append([]string{}, res.Written...), res.Removed...))
	defer release()
	if err != nil {
		return nil, err
	}
	held, err := s.lockAll(ctx, append(append([]string{}, res.Written...), res.Removed...))
	defer func() {
		for _, lk := range held {
			_ = lk.Release()
		}
	}()
	if err != nil {
		return nil, err
	}
	res.Before, err = s.Create(ctx, before, 0)
	if err != nil {
		return nil, fmt.Errorf("checkpoint before restoring: %w", err)
	}
	if err := s.pruneKeeping(ctx, keep, target.ID); err != nil {
		return nil, fmt.Errorf("checkpoint before restoring: %w", err)
	}
	staged, err := s.write(want, res.Written, held)
	defer func() {
		for _, st := range staged {
			st.Discard() // a no-op for the committed ones
		}
	}()
	if err != nil {
		return res, err
	}
	for _, p := range res.Removed {
		abs := s.abs(p)
		if keep, err := s.adjustRemoved(p); err != nil {
			return res, err
		} else if keep != nil {
			// What stays of a file the checkpoint did not have (a
			// ledger's id high-water mark) replaces it instead.
			if err := atomicfile.Write(abs, keep, atomicfile.Options{Commit: held[p].Commit, NoSync: s.NoSync}); err != nil {
				return res, fmt.Errorf("restore %s: %w", p, err)
			}
			continue
		}
		err := held[p].Commit(func() error { return os.Remove(abs) })
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("restore: remove %s: %w", p, err)
		}
		if s.BetweenFiles != nil {
			s.BetweenFiles()
		}
	}
	if !s.NoSync {
		atomicfile.SyncDirs(staged)
	}
	return res, nil
}

// plan lists the files to write (absent or different now), to remove
// (durable now, not in want) and, of those, the derived ones left alone.
func (s *Store) plan(ctx context.Context, want map[string]gitstore.Entry) (written, removed, derived []string, err error) {
	have, err := s.scanOpt(ctx, nil, false)
	if err != nil {
		return nil, nil, nil, err
	}
	written, removed, derived = []string{}, []string{}, []string{}
	add := func(list *[]string, p string) {
		if s.Kept != nil && s.Kept(p) {
			return
		}
		if s.Derived != nil && s.Derived(p) {
			derived = append(derived, p)
			return
		}
		*list = append(*list, p)
	}
	for _, p := range sortedKeys(want) {
		if workspace.IsLocalOnly(p) || !safeRel(p) {
			continue // not ours to write (a tree made by hand)
		}
		if f, ok := have.files[p]; !ok || f.Hash != want[p].Hash {
			add(&written, p)
		}
	}
	for _, p := range sortedKeys(have.files) {
		if _, ok := want[p]; !ok {
			add(&removed, p)
		}
	}
	return written, removed, derived, nil
}

// write puts the files of paths back from want under their held locks.
// Every new content is staged beside its file first and made durable with
// one sync, then renamed into place one file at a time: each file is old
// or restored at any instant, and thousands of files cost one sync
// instead of one each. The staged contents are returned for the caller to
// discard (those committed are gone already).
func (s *Store) write(want map[string]gitstore.Entry, paths []string, held map[string]*lock.Lock) ([]*atomicfile.Staged, error) {
	staged := make([]*atomicfile.Staged, len(paths))
	// Files are created one directory at a time: creating a file holds
	// its directory's lock in the kernel, and a second creator there spins
	// on it, burning the processor that could read the next blob or
	// create in another directory (a whole restore took 30% longer).
	dirLocks := map[string]*sync.Mutex{}
	for _, p := range paths {
		if d := path.Dir(p); dirLocks[d] == nil {
			dirLocks[d] = &sync.Mutex{}
		}
	}
	err := parallel(context.Background(), len(paths), func(i int) error {
		data, err := s.content(want, paths[i])
		if err != nil {
			return err
		}
		mu := dirLocks[path.Dir(paths[i])]
		mu.Lock()
		st, err := atomicfile.Stage(s.abs(paths[i]), data, 0)
		mu.Unlock()
		if err != nil {
			return fmt.Errorf("restore %s: %w", paths[i], err)
		}
		staged[i] = st
		return nil
	})
	staged = slices.DeleteFunc(staged, func(st *atomicfile.Staged) bool { return st == nil })
	if err != nil {
		return staged, err
	}
	if !s.NoSync {
		if err := atomicfile.SyncStaged(staged); err != nil {
			return staged, fmt.Errorf("restore: sync: %w", err)
		}
	}
	for i, p := range paths {
		if err := staged[i].Commit(held[p].Commit); err != nil {
			return staged, fmt.Errorf("restore %s: %w", p, err)
		}
		if s.BetweenFiles != nil {
			s.BetweenFiles()
		}
	}
	return staged, nil
}

// prepared checks that every path of paths can be restored (content).
func (s *Store) prepared(want map[string]gitstore.Entry, paths []string) error {
	for _, p := range paths {
		if _, err := s.content(want, p); err != nil {
			return err
		}
	}
	return nil
}

// content is what restoring p writes: the checkpoint's blob, through
// Adjust (which refuses a blob that does not parse).
func (s *Store) content(want map[string]gitstore.Entry, p string) ([]byte, error) {
	data, err := s.repo.Blob(want[p].Hash)
	if err != nil {
		return nil, err
	}
	if s.Adjust == nil {
		return data, nil
	}
	cur, err := atomicfile.ReadState(s.abs(p))
	if errors.Is(err, atomicfile.ErrNotRegular) {
		cur, err = nil, nil // replaced by the restore, never read through
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("restore %s: %w", p, err)
	}
	if data, err = s.Adjust(p, data, cur); err != nil {
		return nil, fmt.Errorf("restore %s: %w", p, err)
	}
	return data, nil
}

func (s *Store) abs(rel string) string {
	return filepath.Join(s.WS.AgentxDir(), filepath.FromSlash(rel))
}

// safeRel refuses a tree path that would leave .agentx/ (a checkpoint
// ref is a ref like any other: it can be fetched from someone else).
func safeRel(p string) bool {
	if p == "" || filepath.IsAbs(p) || !filepath.IsLocal(filepath.FromSlash(p)) {
		return false
	}
	return true
}

// lockAll takes the locks of paths, each without waiting beyond the
// Locker's Wait, and returns them by path; on a failure it returns those
// taken so far (for the caller to release) and a LOCK_TIMEOUT naming the
// file and its holder.
func (s *Store) lockAll(ctx context.Context, paths []string) (map[string]*lock.Lock, error) {
	locks := make([]*lock.Lock, len(paths))
	batch := s.Locks.Batch()
	defer batch.Close()
	err := parallel(ctx, len(paths), func(i int) error {
		lk, err := batch.Acquire(ctx, s.abs(paths[i]))
		if err != nil {
			var ee *errcode.Error
			if errcode.Is(err, errcode.LockTimeout) && errors.As(err, &ee) {
				ee.Hint = "another agentx process is writing " + paths[i] + "; nothing was restored, run the restore again when it is done"
			}
			return err
		}
		if lk.TookOver() {
			atomicfile.RemoveTemps(s.abs(paths[i])) // a dead writer's
		}
		locks[i] = lk
		return nil
	})
	held := make(map[string]*lock.Lock, len(paths))
	for i, lk := range locks {
		if lk != nil {
			held[paths[i]] = lk
		}
	}
	return held, err
}

// TreeFiles returns the files of checkpoint c (path relative to .agentx/).
func (s *Store) TreeFiles(c Checkpoint) (map[string]gitstore.Entry, error) {
	return s.repo.Files(gitstore.NewHash(c.Tree))
}

// adjustRemoved asks Adjust what of a file the restore removes must stay
// (nil: remove it).
func (s *Store) adjustRemoved(p string) ([]byte, error) {
	if s.Adjust == nil {
		return nil, nil
	}
	cur, err := atomicfile.ReadState(s.abs(p))
	if err != nil {
		return nil, nil // unreadable or gone: nothing to keep from it
	}
	return s.Adjust(p, nil, cur)
}
