package hookcmd

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// signalGrace is how long the first SIGINT or SIGTERM lets context-aware
// code wind down (release locks, restore statuses, write the escalation)
// before the process ends anyway. Code blocked outside a context (a read,
// a child's pipe) would otherwise ignore the signal for good, and `timeout`
// or Ctrl-C would not work.
const signalGrace = 2 * time.Second

// armSignalsAfter is how long a command whose handler is armed on demand
// (signalsFor) runs before the handler is armed anyway: longer than such a
// command takes when it has nothing to act on (monitor over a few issues:
// 2-4 ms), shorter than anyone reacts to a command that hangs.
const armSignalsAfter = 50 * time.Millisecond

// signalGuard is the signal handler of one command line: once armed, the
// first SIGINT or SIGTERM cancels its context; a second signal, or the
// grace after the first, calls exit with the shell's status for the first
// signal (128 + its number). Arming it
// (signal.Notify) costs about 0.25 ms of CPU, a fifth of a Go
// hello-world's run: os/signal starts a goroutine locked to a thread of
// its own, and a second thread waits for signals. A command that arms it
// on demand arms it before its first lock and after armSignalsAfter, and
// one that ends before either never pays; a signal before it is armed ends
// the process at once, as it ends `version` or `hook deliver`.
type signalGuard struct {
	ctx    context.Context
	cancel context.CancelFunc
	grace  time.Duration
	exit   func(code int)
	// ready is called once the handler is in place (the signal tests'
	// cue; nil: none).
	ready func(ctx context.Context)

	mu      sync.Mutex
	armed   bool
	stopped bool
	ch      chan os.Signal
	timer   *time.Timer
}

func newSignalGuard(parent context.Context, grace time.Duration, exit func(code int), ready func(ctx context.Context)) *signalGuard {
	ctx, cancel := context.WithCancel(parent)
	return &signalGuard{ctx: ctx, cancel: cancel, grace: grace, exit: exit, ready: ready}
}

// armLater arms the handler after d unless it was armed or stopped first.
func (g *signalGuard) armLater(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.armed && !g.stopped {
		g.timer = time.AfterFunc(d, g.arm)
	}
}

// arm installs the handler; it does nothing once armed or stopped.
func (g *signalGuard) arm() {
	g.mu.Lock()
	if g.armed || g.stopped {
		g.mu.Unlock()
		return
	}
	g.armed = true
	if g.timer != nil {
		g.timer.Stop()
	}
	g.ch = make(chan os.Signal, 2)
	signal.Notify(g.ch, os.Interrupt, syscall.SIGTERM)
	go g.wait(g.ch)
	g.mu.Unlock()
	if g.ready != nil {
		g.ready(g.ctx)
	}
}

// wait takes the first signal (cancelling the context), then the second
// or the grace's end (calling exit). It runs until the process ends.
func (g *signalGuard) wait(ch chan os.Signal) {
	first := <-ch
	g.cancel()
	t := time.NewTimer(g.grace)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
	code := 128 + 15
	if n, ok := first.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	g.exit(code)
}

// stop cancels the context; later calls do nothing. It runs as the
// process ends (Main's callers exit with its result), so the handler is
// left as it is: handing the signals back to os/signal (signal.Stop, a
// handshake with its thread) and waking wait to return each cost a thread
// switch, 0.05 ms of every command, and a signal that comes now meets a
// process already on its way out.
func (g *signalGuard) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return
	}
	g.stopped = true
	if g.timer != nil {
		g.timer.Stop()
	}
	g.cancel()
}
