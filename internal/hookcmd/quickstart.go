package hookcmd

import (
	"context"
	"os"
	"time"
)

// signalsUnlessQuick is withSignals for every command line but the few
// that write nothing and take no lock (version, help, completion): a
// signal may end those at once, as it ends any program, so they skip
// setting up the handler. os/signal starts a thread to receive signals,
// 0.2 ms, a fifth of a whole Go hello-world's run (docs/performance-history.md,
// "Process start against a hello-world").
func signalsUnlessQuick(args []string, grace time.Duration) (context.Context, func()) {
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version", "help", "-h", "--help", "completion":
			return context.Background(), func() {}
		case "hook":
			// The deliver hook runs on every prompt and tool call and
			// takes milliseconds; a signal ends it as it would any
			// process (a ledger lock it held is taken over as a dead
			// process's).
			if len(args) > 1 && args[1] == "deliver" {
				return context.Background(), func() {}
			}
		}
	}
	return withSignals(context.Background(), grace, os.Exit)
}
