// Package atomicfiletest holds test helpers for the writers built on
// atomicfile: the crash of a writer process at the worst moment of an
// atomic write, which the tests of every writer re-create the same way.
package atomicfiletest

import (
	"context"
	"os"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// CrashMidWrite is the body of a helper process: it takes the lock on
// lockTarget, writes file's temporary, prints "crashing" and exits just
// before the rename, leaving both the temporary and the lock behind, as a
// writer killed there would. It never returns.
func CrashMidWrite(file, lockTarget string) {
	lk, err := lock.New(lock.Options{}).Acquire(context.Background(), lockTarget)
	if err != nil {
		os.Exit(2)
	}
	_ = atomicfile.Write(file, []byte("{}\n"), atomicfile.Options{Commit: func(func() error) error {
		// The parent waits for this line; if it cannot be written the
		// parent times out, which is the failure we would report anyway.
		_, _ = os.Stdout.WriteString("crashing\n")
		os.Exit(3)
		return nil
	}})
	_ = lk.Release()
	os.Exit(2)
}
