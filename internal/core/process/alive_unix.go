//go:build unix

package process

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with pid exists on this host. Signal 0
// probes without delivering anything; EPERM means it exists as another
// user.
func Alive(pid int) bool {
	if pid <= 0 {
		// kill(0) and kill(-n) address process groups, not a process.
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
