//go:build unix

package events

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// appendLine appends one line under an exclusive flock(2) of the log file
// itself, as audit.jsonl is appended. The log is agentx's alone (the old
// tools keep their events in memory), so its appends need no lock file the
// old tools understand: package lock's file cost an inode created and
// removed on every event (with the ledger's own lock and temporary, a
// third of a clarify command's system time), while a flock costs nothing
// on disk and dies with its holder, so it is never stale.
//
// A trim replaces the log (atomic rename) while holding its flock: an
// appender that waited on the old file finds it is no longer the log and
// starts over on the new one. The trim also takes the log's lock file,
// which a checkpoint restore and agentx releases before this one hold
// while they replace or append to the log: it never rewrites the log
// under them. A checkpoint restore also holds the log's flock while it
// replaces the log (checkpoint's flockAppended): an append racing it
// lands before or after it, as with the lock file, never in the file it
// renames away.
func (l *Log) appendLine(ctx context.Context, line []byte) error {
	for {
		done, err := l.tryAppend(ctx, line)
		if done || err != nil {
			return err
		}
		// The log was replaced while we waited: again, on the new one,
		// unless the caller gave up meanwhile (a path that never names
		// the file opened would otherwise spin).
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("append event log: %w", err)
		}
	}
}

// tryAppend is one attempt: false when the file locked was no longer the
// log (trimmed or replaced while we waited) and nothing was written.
func (l *Log) tryAppend(ctx context.Context, line []byte) (bool, error) {
	f, err := l.openLog()
	if err != nil {
		return false, err
	}
	defer func() { _ = f.Close() }() // the write's error is what matters
	unlock, err := atomicfile.FlockWait(ctx, f, lockWait)
	if err != nil {
		return false, err
	}
	defer unlock()
	info, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("append event log: %w", err)
	}
	if now, err := os.Lstat(l.Path); err != nil || !os.SameFile(info, now) {
		return false, nil
	}
	trim, err := write(f, line)
	if err != nil || !trim {
		return true, err
	}
	// The event is in; a trim refused because its lock was taken over is
	// left to the next writer.
	err = atomicfile.WithLock(ctx, l.Locks, l.Path, func(lk *lock.Lock) error { return l.trim(lk) })
	if errors.Is(err, lock.ErrLost) {
		err = nil
	}
	return true, err
}

// lockWait bounds the wait for another appender's flock: one holds it for
// a write, or a trim of a few hundred KB.
const lockWait = 10 * time.Second
