package hookcmd

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	// Race-built agentx-hook processes skip the race detector's exit sleep.
	_ "github.com/agentx-dev/agentx/internal/gorace"
)

// TestMain lets testscript run agentx-hook as a real process: the scripts
// in testdata/script call the binary built from this package's Main.
func TestMain(m *testing.M) {
	cmds := testHelpers()
	cmds["agentx-hook"] = func() { os.Exit(Main(os.Args[1:])) }
	testscript.Main(m, cmds)
}

// TestScripts runs the end-to-end scripts in testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("AGENTX_ROOT", "")
			return nil
		},
	})
}
