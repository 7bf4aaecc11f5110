package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Staged is new content written beside its file and not yet in place: the
// two halves of Write for a writer that replaces many files at once (a
// checkpoint restore) and makes them durable with one SyncStaged instead
// of an fsync per file, which costs seconds over thousands of files.
type Staged struct {
	path, tmp string
}

// Stage writes data to path's temporary (the name RemoveTemps cleans up
// after a crash), without making it durable.
func Stage(path string, data []byte, perm fs.FileMode) (*Staged, error) {
	if perm == 0 {
		perm = 0o644
	}
	tmp, err := newTemp(path, data, Options{Perm: perm, NoSync: true})
	if err != nil {
		return nil, err
	}
	return &Staged{path: path, tmp: tmp}, nil
}

// Discard removes the temporary of a content not committed.
func (s *Staged) Discard() { _ = os.Remove(s.tmp) }

// Commit renames the staged content into place, through commit when set
// (Lock.Commit, as Options.Commit). Call SyncStaged first.
func (s *Staged) Commit(commit func(rename func() error) error) error {
	rename := func() error {
		if err := os.Rename(s.tmp, s.path); err != nil {
			return fmt.Errorf("replace %s: %w", s.path, err)
		}
		return nil
	}
	if commit != nil {
		return commit(rename)
	}
	return rename()
}

// SyncStaged makes the staged contents durable before any is committed,
// so that a crash after a rename never leaves an empty file: one
// file-system-wide sync per directory where the system has one (Linux's
// syncfs), else an fsync per file.
func SyncStaged(staged []*Staged) error {
	var errs []error
	seen := map[string]bool{}
	for _, s := range staged {
		dir := filepath.Dir(s.tmp)
		if seen[dir] {
			continue
		}
		if syncFS(dir) {
			seen[dir] = true
			continue
		}
		f, err := os.Open(s.tmp)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, f.Sync(), f.Close())
	}
	return errors.Join(errs...)
}

// SyncDirs makes the renames into the directories of staged durable.
func SyncDirs(staged []*Staged) {
	seen := map[string]bool{}
	for _, s := range staged {
		if dir := filepath.Dir(s.path); !seen[dir] {
			seen[dir] = true
			syncDir(dir)
		}
	}
}
