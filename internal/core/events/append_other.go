//go:build !unix

package events

import (
	"context"
	"errors"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// appendLine appends one line under the log's lock file (no flock here).
func (l *Log) appendLine(ctx context.Context, line []byte) error {
	return atomicfile.WithLock(ctx, l.Locks, l.Path, func(lk *lock.Lock) error {
		f, err := l.openLog()
		if err != nil {
			return err
		}
		trim, werr := write(f, line)
		if err := errors.Join(werr, f.Close()); err != nil {
			return err
		}
		if !trim {
			return nil
		}
		// The event is in; a trim refused because our lock was taken over
		// is left to the next writer (running this hold again would append
		// the event twice).
		if err := l.trim(lk); err != nil && !errors.Is(err, lock.ErrLost) {
			return err
		}
		return nil
	})
}
