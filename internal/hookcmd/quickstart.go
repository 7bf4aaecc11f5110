package hookcmd

import (
	"context"
	"os"
	"strings"
	"time"
)

// signalsFor sets up the signal handling of a command line (signalGuard):
// none for the few commands that write nothing and take no lock (version,
// help, completion) and for `hook deliver`: a signal may
// end those at once, as it ends any program. os/signal starts a thread to
// receive signals, 0.2 ms, a fifth of a whole Go hello-world's run
// (docs/performance-history.md, "Process start against a hello-world").
// `monitor` arms it on demand: before its first lock (the returned arm,
// which the command's Locker calls) or after armSignalsAfter, so a check
// with nothing to act on never pays for it, and one that acts (a stale
// record marked, a responder re-invoked, an escalation) does so under
// the handler as before. `memory search` arms it only before its first
// lock or write (armsOnDemand). Every other command arms it at once. ready,
// when set, is called once the handler is in place (at once when there
// is none).
func signalsFor(args []string, grace time.Duration, ready func(context.Context)) (ctx context.Context, stop, arm func()) {
	none := func() (context.Context, func(), func()) {
		ctx := context.Background()
		if ready != nil {
			ready(ctx)
		}
		return ctx, func() {}, nil
	}
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version", "help", "-h", "--help", "completion":
			return none()
		case "hook":
			// The deliver hook runs on every prompt and tool call and
			// takes milliseconds; a signal ends it as it would any
			// process (a ledger lock it held is taken over as a dead
			// process's).
			if len(args) > 1 && args[1] == "deliver" {
				return none()
			}
		}
	}
	g := newSignalGuard(context.Background(), grace, os.Exit, ready)
	if onDemand, after := armsOnDemand(commandOf(args)); onDemand {
		if after > 0 {
			g.armLater(after)
		}
		return g.ctx, g.stop, g.arm
	}
	g.arm()
	return g.ctx, g.stop, nil
}

// armsOnDemand reports whether the command line cmd arms its signal
// handler on demand, and after how long it arms it anyway (0: never).
// `monitor` arms it after armSignalsAfter: a check that acts may run
// long. `memory search` only before it writes: a reader whose only
// writes are the derived records it leaves in the store's pending
// directory (the freshness record, the overlay of a foreign edit, the
// anchors' state, the configuration cache), each through atomicfile,
// whose hook arms the handler before the write's temporary exists
// (mainGrace), and any lock through the Locker's; a signal before that
// ends it at once, as it ends any reader. The handler was 0.25 ms of a
// 4.5 ms search, the timer 0.02 ms (issue 35).
func armsOnDemand(cmd []string) (onDemand bool, after time.Duration) {
	switch {
	case len(cmd) > 0 && cmd[0] == "monitor":
		return true, armSignalsAfter
	case len(cmd) > 1 && cmd[0] == "memory" && cmd[1] == "search":
		return true, 0
	}
	return false, 0
}

// commandOf is args past the global --root flags (App.Run); nil when the
// last --root lacks its value.
func commandOf(args []string) []string {
	if i := afterRootFlags(args); i <= len(args) {
		return args[i:]
	}
	return nil
}

// afterRootFlags is the index in args past the global --root flags
// (App.Run): past len(args) when the last one lacks its value.
func afterRootFlags(args []string) int {
	i := 0
	for i < len(args) {
		switch {
		case args[i] == "--root" || args[i] == "-root":
			i += 2
		case strings.HasPrefix(args[i], "--root="):
			i++
		default:
			return i
		}
	}
	return i
}
