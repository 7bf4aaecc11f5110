package testenv

import (
	"syscall"
	"testing"
	"time"
)

// ThreadCPU is the CPU time (user + kernel) of the whole process on
// Windows, where a thread's own is not read here: a bound on it still
// holds, loosely.
func ThreadCPU(t testing.TB) time.Duration {
	t.Helper()
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		t.Fatal(err)
	}
	var c, e, k, u syscall.Filetime
	if err := syscall.GetProcessTimes(h, &c, &e, &k, &u); err != nil {
		t.Fatal(err)
	}
	return ticks(k) + ticks(u)
}

// ticks is a FILETIME read as a duration (100 ns units), not as a date.
func ticks(f syscall.Filetime) time.Duration {
	return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
}
