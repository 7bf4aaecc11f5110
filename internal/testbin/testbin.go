// Package testbin puts a test binary on $PATH under the names of the
// binaries it stands in for (agentx-hook, agentx-mcp), so that tests start
// it as a real process the way a host or git does, and hands such a
// process its standard input already written (FilledPipe), as a host's
// payload is. Test support only.
package testbin

import (
	"os"

	"github.com/agentx-dev/agentx/internal/testenv"
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
	// A copy (another file system), written where no fork of this process
	// inherits it open (testenv.WriteExecutable): a child forked meanwhile
	// by another test would hold the write descriptor until its own exec,
	// and starting the copy would fail with "text file busy"
	// (golang/go#22315), which a loaded machine made happen (mcpcmd's
	// TestAgentxHookWithoutMCPBinary).
	data, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	return testenv.WriteExecutable(path, data, 0o755)
}
