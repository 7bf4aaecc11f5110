package verify

import (
	"os"
	"testing"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// TestMain puts the temporary directories on a RAM filesystem (testenv)
// and removes the store the held-bytes tests share.
func TestMain(m *testing.M) { os.Exit(testenv.Main(removingHeld{m})) }

// removingHeld runs the tests, then removes heldWorkspace's directory.
type removingHeld struct{ m *testing.M }

func (r removingHeld) Run() int {
	defer func() {
		if heldDir != "" {
			_ = os.RemoveAll(heldDir)
		}
	}()
	return r.m.Run()
}
