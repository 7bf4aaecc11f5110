package hookcmd

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// signalGrace is how long the first SIGINT or SIGTERM lets context-aware
// code wind down (release locks, restore statuses, write the escalation)
// before the process ends anyway. Code blocked outside a context (a read,
// a child's pipe) would otherwise ignore the signal for good, and `timeout`
// or Ctrl-C would not work.
const signalGrace = 2 * time.Second

// withSignals returns a context cancelled by the first SIGINT or SIGTERM;
// a second signal, or the grace after the first, calls exit with the
// shell's status for the first signal (128 + its number). stop releases the
// signals.
func withSignals(parent context.Context, grace time.Duration, exit func(code int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		select {
		case first = <-ch:
		case <-done:
			return
		}
		cancel()
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-ch:
		case <-t.C:
		case <-done:
			return
		}
		code := 128 + 15
		if n, ok := first.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		exit(code)
	}()
	var once bool
	return ctx, func() {
		if once {
			return
		}
		once = true
		signal.Stop(ch)
		close(done)
		cancel()
	}
}
