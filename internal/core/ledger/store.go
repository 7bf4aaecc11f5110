package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Store reads and writes the ledgers of one workspace.
type Store struct {
	WS    workspace.Workspace
	Locks *lock.Locker
	// NoSync skips fsync (benchmarks of the logic alone; never in the CLI).
	NoSync bool

	written written
}

// Load reads the ledger of issue without locking. A missing file is an
// empty ledger; a file that does not parse is CORRUPT_STATE.
func (s *Store) Load(issue int) (*Ledger, error) {
	return LoadFile(s.WS.LedgerFile(issue), issue)
}

// LoadFile reads one ledger file. A file that does not parse while its
// lock is held is read again once the lock is gone, for up to TornWait:
// the TypeScript tool rewrites a ledger in place (truncate, then write)
// under its lock, and a reader in between saw an empty or half file
// (`clarify --all --json` dropped that issue in 42% of reads). Past the
// wait, or when a read made after the lock was seen gone gives the same
// bytes with still no lock, it is CORRUPT_STATE as before.
func LoadFile(path string, issue int) (*Ledger, error) {
	deadline := time.Now().Add(TornWait)
	var prev []byte
	unlocked := false // the lock was seen gone after the previous read
	for {
		data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return &Ledger{IssueNumber: issue}, nil
			}
			return nil, ReadError(path, err)
		}
		l, err := Parse(path, data, issue)
		if err == nil || time.Now().After(deadline) {
			return l, err
		}
		held := lockHeld(path)
		if !held && unlocked && bytes.Equal(data, prev) {
			// Read after the lock was gone, with no lock now, the same
			// bytes as before: no writer is at it, the file is corrupt.
			return l, err
		}
		if held {
			if onTornWait != nil {
				onTornWait(path)
			}
			time.Sleep(5 * time.Millisecond) // a writer is at it: wait it out
		}
		// A lock seen gone may have been released after this read, by a
		// writer that had not finished when the file was read: one more
		// read, at once, tells.
		unlocked, prev = !held, data
	}
}

// loadLocked reads a ledger whose lock the caller holds. No writer can be
// half-way through the file then (every writer, the old tools' in-place
// rewrite included, holds the lock), so a file that does not parse is
// CORRUPT_STATE at once: LoadFile's wait for the lock to go would wait on
// the caller itself, for the whole TornWait.
//
// A file in the canonical layout (decodeCanonical) is decoded by the fast
// path and comes with where its records end; any other goes through
// Parse, which reports what is wrong with it.
func loadLocked(path string, issue int) (*Ledger, *canonical, error) {
	data, err := atomicfile.ReadRegularRoom(path, atomicfile.StateLimit, spliceRoom)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Ledger{IssueNumber: issue}, nil, nil
		}
		return nil, nil, ReadError(path, err)
	}
	if l, c, ok := decodeCanonical(data, issue); ok {
		return l, c, nil
	}
	l, err := Parse(path, data, issue)
	return l, nil, err
}

// TornWait bounds how long a read waits for a writer that holds the lock
// of a ledger that does not parse.
const TornWait = 2 * time.Second

// onTornWait, when set (by tests, before any runs), is told of every
// pause LoadFile makes for a writer holding path's lock: what a test
// checks, instead of the time a read took.
var onTornWait func(path string)

// lockHeld reports whether the ledger at path has a lock file (any
// process's: ours write atomically, the old tools in place).
func lockHeld(path string) bool {
	_, err := os.Lstat(lock.PathFor(path))
	return err == nil
}

// Parse decodes a ledger file's content; path is for error messages.
func Parse(path string, data []byte, issue int) (*Ledger, error) {
	l, err := Decode(data)
	if err != nil {
		return nil, jsonfile.Corrupt(path, jsonfile.CorruptOffset(data, err), err)
	}
	if l.IssueNumber == 0 {
		l.IssueNumber = issue
		for i := range l.Clarifications {
			if l.Clarifications[i].IssueNumber == 0 {
				l.Clarifications[i].IssueNumber = issue
			}
		}
	}
	return l, nil
}

// FileIssue returns the issue of a ledger file name `issue-N.json`,
// issue 0 included: the old chat integration filed everything under it,
// and what another tool wrote is read and acted on (new records still
// need 1..10^9, validate.Issue).
func FileIssue(name string) (int, bool) {
	if name == "issue-0.json" {
		return 0, true
	}
	return workspace.LedgerIssue(name)
}

// Issues lists the issue numbers that have a ledger file, ascending.
func (s *Store) Issues() ([]int, error) {
	issues, err := workspace.IssueFiles(s.WS.ClarificationsDir(), FileIssue)
	if err != nil {
		return nil, fmt.Errorf("list ledgers: %w", err)
	}
	return issues, nil
}

// Update runs fn on the ledger of issue under its lock and writes the result
// atomically. An error from fn aborts without writing and is returned.
// The ledger it returns is the one written, which the Store remembers
// (OpenWritten): the caller reads it and does not change it.
// When the lock turns out to have been taken over while we held it (we were
// paused past the stale threshold), the write is refused and the whole
// read-modify-write is retried on the fresh ledger, so no update is lost.
func (s *Store) Update(ctx context.Context, issue int, fn func(*Ledger) error) (*Ledger, error) {
	return s.update(ctx, issue, fn, false)
}

// Append is Update for a change that only adds records at the end of the
// ledger (a new clarification) and changes nothing that was there. When
// the file was in the canonical layout, the new records are laid out
// alone and spliced in before the end of the array: the bytes written are
// the ones Update writes (TestAppendWritesWhatUpdateWrites), without
// laying out the records already there again. A change that turns out
// to touch more (the records or the keys that were there no longer the
// same) is written whole, as Update writes it.
func (s *Store) Append(ctx context.Context, issue int, fn func(*Ledger) error) (*Ledger, error) {
	return s.update(ctx, issue, fn, true)
}

func (s *Store) update(ctx context.Context, issue int, fn func(*Ledger) error, appendOnly bool) (*Ledger, error) {
	path := s.WS.LedgerFile(issue)
	var out *Ledger
	lockCtx := ctx
	if d, ok := ctx.Value(lockWaitKey{}).(time.Duration); ok {
		var cancel context.CancelFunc
		lockCtx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	err := atomicfile.WithLock(lockCtx, s.Locks, path, func(lk *lock.Lock) error {
		out = nil
		l, canon, err := loadLocked(path, issue)
		if err != nil {
			return err
		}
		var before *appendBase
		if appendOnly && canon != nil {
			before = canon.base(l)
		}
		if err := fn(l); err != nil {
			return err
		}
		data, ok := before.splice(l)
		if !ok {
			if data, err = jsonfile.Marshal(l); err != nil {
				return fmt.Errorf("encode ledger %s: %w", path, err)
			}
		}
		if err := atomicfile.Write(path, data, atomicfile.Options{Commit: lk.Commit, NoSync: s.NoSync}); err != nil {
			return err
		}
		s.written.remember(path, data, l)
		out = l
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

type lockWaitKey struct{}

// WithLockWait returns ctx under which Update waits at most d for the
// ledger's lock (LOCK_TIMEOUT after that). The monitor runs inside every
// hook and command and must not queue behind another process's lock; the
// bound is the lock wait only, and what follows the write (events, agent
// status) keeps ctx's own deadline.
func WithLockWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, lockWaitKey{}, d)
}

// Loaded is one ledger read by LoadAll, or the error that kept it out.
type Loaded struct {
	Issue  int
	Ledger *Ledger
	Err    error
}

// LoadAll reads every ledger of the workspace, several files at a time. A
// corrupt file is returned with its error (the caller reports and skips it)
// and never stops the others from loading.
func (s *Store) LoadAll() ([]Loaded, error) {
	issues, err := s.Issues()
	if err != nil {
		return nil, err
	}
	out := make([]Loaded, len(issues))
	workers := 4
	if len(issues) < 64 {
		workers = 1
	}
	next := make(chan int, len(issues))
	for i := range issues {
		next <- i
	}
	close(next)
	done := make(chan struct{})
	for w := 0; w < workers; w++ {
		go func() {
			for i := range next {
				l, err := s.Load(issues[i])
				out[i] = Loaded{Issue: issues[i], Ledger: l, Err: err}
			}
			done <- struct{}{}
		}()
	}
	for w := 0; w < workers; w++ {
		<-done
	}
	return out, nil
}

// ReadError is a failed read of the ledger at path: a refusal of
// atomicfile's (too large, not a regular file) names the file already.
func ReadError(path string, err error) error {
	if errcode.Is(err, errcode.CorruptState) {
		return err
	}
	return fmt.Errorf("read ledger %s: %w", path, err)
}
