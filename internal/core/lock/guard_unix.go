//go:build unix

package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// guardName is the one file per directory whose flock(2) serialises the
// rare moments when a lock file is removed: a takeover and a release. The
// lock files themselves stay O_EXCL files the old tools understand; the
// guard only makes "check it is the lock I judged, then remove it" one step
// among our own processes. flock is released by the kernel when a process
// dies, so the guard itself can never go stale.
const guardName = ".agentx-guard.lock"

type guard struct{ f *os.File }

// lockGuard takes the directory's guard, polling so a context bounds the
// wait (a process stopped inside the few-microsecond section must not hang
// everyone for ever).
func lockGuard(ctx context.Context, dir string) (*guard, error) {
	// Never through a symlink (a cloned repository could aim one outside
	// it) and never blocking on a FIFO; only a regular file is a guard.
	f, err := os.OpenFile(filepath.Join(dir, guardName), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("%s: not a regular file", filepath.Join(dir, guardName))
	}
	delay := 100 * time.Microsecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &guard{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, err
		}
		if err := sleepCtx(ctx, delay); err != nil {
			_ = f.Close()
			return nil, err
		}
		if delay < 5*time.Millisecond {
			delay *= 2
		}
	}
}

func (g *guard) unlock() {
	_ = syscall.Flock(int(g.f.Fd()), syscall.LOCK_UN)
	_ = g.f.Close()
}
