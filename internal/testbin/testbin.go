// Package testbin puts a test binary on $PATH under the names of the
// binaries it stands in for (agentx-hook, agentx-mcp), so that tests start
// it as a real process the way a host or git does, and hands such a
// process its standard input already written (FilledPipe), as a host's
// payload is. Test support only.
package testbin

import (
	"io"
	"os"
	"syscall"
)

// InstallSelf copies the running test binary to path (a hard link where
// it can).
func InstallSelf(path string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if os.Link(self, path) == nil {
		return nil
	}
	// A copy (another file system): no process may fork while it is open
	// for writing. A child forked meanwhile by another test of this
	// process holds the write descriptor until its own exec, and starting
	// the copy then fails with "text file busy" (golang/go#22315), which
	// a loaded machine made happen (mcpcmd's TestAgentxHookWithoutMCPBinary).
	// A fork holds syscall.ForkLock's write lock, so its read lock keeps
	// every fork out while the copy is open (as testenv.WriteExecutable).
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	src, err := os.Open(self)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }()
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		_ = dst.Close()
		return err
	}
	return dst.Close()
}
