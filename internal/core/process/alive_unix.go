//go:build unix

package process

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with pid exists on this host. Signal 0
// probes without delivering anything; EPERM means it exists as another
// user. A zombie (exited, not yet reaped by its parent) answers signal 0
// too but runs nothing: it is not alive, so a lock a killed holder left is
// taken over at once even where its parent, or an init that reaps late,
// has not collected it yet.
func Alive(pid int) bool {
	if pid <= 0 {
		// kill(0) and kill(-n) address process groups, not a process.
		return false
	}
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !zombie(pid)
}
