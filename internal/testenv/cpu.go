package testenv

import (
	"runtime"
	"testing"
	"time"
)

// A test that bounds how long code may take bounds the CPU the code used
// on its own thread, never wall time: the load of the machine and the
// tests running beside it change wall time, not the work done.

// LockThread locks the calling goroutine to its OS thread until the test
// ends, so that ThreadCPU measures only that goroutine's work.
func LockThread(t testing.TB) {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}

// CPUOf runs f on the calling goroutine, locked to its thread, and
// returns the CPU time (user + system) that thread used meanwhile.
func CPUOf(t testing.TB, f func()) time.Duration {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := ThreadCPU(t)
	f()
	return ThreadCPU(t) - before
}
