//go:build unix

package testenv

import (
	"syscall"
	"testing"
	"time"
)

// ThreadCPU is the CPU time (user + system) the calling OS thread has
// used (lock the goroutine to it first: LockThread, CPUOf); where a
// thread's own is not available (rusageThread), the whole process's: a
// bound on it still holds, loosely.
func ThreadCPU(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
