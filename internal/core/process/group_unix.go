//go:build unix

package process

import (
	"os/exec"
	"syscall"
)

// KillGroupOnCancel starts cmd as the leader of a new process group and
// makes its cancellation (the context of exec.CommandContext) kill the
// whole group with SIGKILL: a child that ignores SIGTERM, and the children
// it started (a shell script's, ssh under git), would otherwise live on
// holding cmd's pipes. Call it before cmd starts.
func KillGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// Detach starts cmd in a session of its own, so that it outlives its
// parent: a host that kills its hook's process group (on a timeout, at the
// session's end) does not reach it, and no terminal signal does either.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// KillGroup sends SIGKILL to the process group cmd leads (started with
// KillGroupOnCancel): what is left of it once cmd has exited, its
// background children.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
