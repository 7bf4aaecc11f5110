//go:build unix

package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// FlockWait takes an exclusive flock(2) on the open file f, polling so
// that ctx and limit bound the wait (a flock has no timeout of its own).
// For files agentx alone appends to (the audit trail, the event log): a
// flock costs no file creation, and the kernel releases it when its holder
// dies, so it is never stale.
func FlockWait(ctx context.Context, f *os.File, limit time.Duration) (unlock func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	delay := 50 * time.Microsecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock %s: another process held it for %s", f.Name(), limit)
		case <-time.After(delay):
		}
		delay = min(2*delay, 10*time.Millisecond)
	}
}
