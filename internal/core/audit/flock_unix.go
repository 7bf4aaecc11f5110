//go:build unix

package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockOpen takes an exclusive flock(2) on the open trail file, polling so
// ctx bounds the wait. The trail is agentx's alone (the old tools never
// read it), so it needs no lock file the old tools understand: a flock
// costs no file creation, and the kernel releases it when its holder dies,
// so it is never stale. (Package lock's files cost a dozen metadata
// operations, most of the 1 ms an append may take.)
func (t *Trail) lockOpen(ctx context.Context, f *os.File) (unlock func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, lockWait)
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
			return nil, fmt.Errorf("lock %s: another process held it for %s", f.Name(), lockWait)
		case <-time.After(delay):
		}
		delay = min(2*delay, 10*time.Millisecond)
	}
}
