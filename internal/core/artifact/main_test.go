package artifact

import (
	"os"
	"testing"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// TestMain puts the temporary directories on a RAM filesystem (testenv).
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
