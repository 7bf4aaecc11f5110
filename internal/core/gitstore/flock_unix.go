//go:build unix

package gitstore

import (
	"os"
	"syscall"
)

// tryFlock takes an exclusive flock on f without waiting.
func tryFlock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

func unflock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
