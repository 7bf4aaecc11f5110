//go:build !unix

package responder

import "os/exec"

// setGroup: process groups are a unix notion; elsewhere the default
// cancellation kills the responder itself.
func setGroup(*exec.Cmd) {}
