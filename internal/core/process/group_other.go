//go:build !unix

package process

import "os/exec"

// KillGroupOnCancel: process groups are a unix notion; elsewhere the
// default cancellation kills the process itself, and cmd.WaitDelay bounds
// the wait for pipes its children still hold.
func KillGroupOnCancel(*exec.Cmd) {}

// Detach: without sessions, cmd is only started and not waited for; it
// still outlives its parent on the platforms this is built for.
func Detach(*exec.Cmd) {}

// KillGroup: no process groups here.
func KillGroup(*exec.Cmd) {}
