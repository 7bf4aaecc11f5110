//go:build !unix

package process

import "os/exec"

// KillGroupOnCancel: process groups are a unix notion; elsewhere the
// default cancellation kills the process itself, and cmd.WaitDelay bounds
// the wait for pipes its children still hold.
func KillGroupOnCancel(*exec.Cmd) {}
