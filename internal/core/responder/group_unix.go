//go:build unix

package responder

import (
	"os/exec"
	"syscall"
)

// setGroup starts cmd as the leader of a new process group and makes its
// cancellation kill the whole group.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
