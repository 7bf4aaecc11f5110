//go:build unix && !linux

package testenv

import (
	"syscall"
	"testing"
	"time"
)

// ThreadCPU is the CPU time (user + system) of the whole process where a
// thread's own is not available: a bound on it still holds, loosely.
func ThreadCPU(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
