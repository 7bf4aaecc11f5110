//go:build !unix

package audit

import (
	"context"
	"os"
	"sync"

	"github.com/agentx-dev/agentx/internal/core/lock"
)

// lockOpen takes the trail's lock through package lock where there is no
// flock(2).
func (t *Trail) lockOpen(ctx context.Context, f *os.File) (unlock func(), err error) {
	lk, err := t.locks().Acquire(ctx, f.Name())
	if err != nil {
		return nil, err
	}
	return func() { _ = lk.Release() }, nil
}

var (
	defaultLocksOnce sync.Once
	defaultLocks     *lock.Locker
)

func (t *Trail) locks() *lock.Locker {
	if t.Locks != nil {
		return t.Locks
	}
	defaultLocksOnce.Do(func() { defaultLocks = lock.New(lock.Options{Agent: "audit"}) })
	return defaultLocks
}
