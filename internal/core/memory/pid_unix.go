//go:build unix

package memory

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid exists on this host (signal 0 probes
// without delivering anything; EPERM means it exists as another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
