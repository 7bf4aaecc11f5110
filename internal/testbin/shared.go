package testbin

import (
	"sync"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// SharedHook returns the path of a real agentx-hook (cmd/agentx-hook),
// built once per content of the module and shared by every test binary
// and run of the suite that asks (testenv.SharedBinary, under the same
// key as internal/e2e/statesafety's). It is built without the race
// detector whatever the test binary is: a test that starts hundreds of
// processes checks what they do to the files they share, which no race
// detector sees across processes, and a plain agentx-hook starts at
// about two thirds of the CPU of a test binary standing in for it
// (smaller, without the test's packages to initialise). Built at the
// first call of a test binary only, so packages that never start it
// never build it. Call it first before anything moves $HOME (as
// statebranchtest.Env does): the shared cache and go build's own cache
// are found through it, and a moved $HOME is a cold build of everything.
func SharedHook() (string, error) { return sharedHook() }

var sharedHook = sync.OnceValues(func() (string, error) {
	return testenv.SharedBinary("agentx-hook", "go build ./cmd/agentx-hook",
		testenv.GoBuild("github.com/agentx-dev/agentx/cmd/agentx-hook"))
})
