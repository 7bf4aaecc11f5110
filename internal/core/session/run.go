package session

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Run is one hook's overall deadline ([hooks] deadline, or --deadline).
// The hook's steps (state pull, monitor, agent status, memory recall or
// capture, state push) each run through Step, with the deadline's context:
// a step not begun when it passes is skipped, and one that was waiting
// (on a lock, on the network) gives up, since everything that waits takes
// the context. What a step had begun writing still finishes: writes are
// atomic and never interrupted. The hook then prints its output, one
// warning naming the steps not done (Report), and exits 0.
type Run struct {
	ctx     context.Context
	limit   time.Duration
	what    string // "hook start", "git-hook pre-push"
	current string // the step running, "" between steps
	cut     bool   // the current step warned after the deadline passed
	skipped []string
}

// NewRun starts the deadline of a hook begun at start (the payload read
// counts). The returned function ends it.
func NewRun(ctx context.Context, what string, start time.Time, limit time.Duration) (*Run, context.CancelFunc) {
	ctx, cancel := context.WithDeadline(ctx, start.Add(limit))
	return &Run{ctx: ctx, limit: limit, what: what}, cancel
}

// Context is the deadline's context.
func (r *Run) Context() context.Context { return r.ctx }

// Step runs fn unless the deadline has passed.
func (r *Run) Step(name string, fn func(ctx context.Context)) {
	if r.ctx.Err() != nil {
		r.skipped = append(r.skipped, name)
		return
	}
	r.current, r.cut = name, false
	fn(r.ctx)
	if r.cut {
		r.skipped = append(r.skipped, name+" (cut short)")
	}
	r.current, r.cut = "", false
}

// Rename renames a skipped step in the report (what became of it).
func (r *Run) Rename(name, to string) {
	for i, s := range r.skipped {
		if s == name {
			r.skipped[i] = to
		}
	}
}

// Skipped names the steps the deadline skipped or cut short, in order.
func (r *Run) Skipped() []string { return append([]string(nil), r.skipped...) }

// Swallow reports whether a warning of the current step is the deadline's
// doing: once it passed, what a step says about giving up is said once, by
// Report, for every step. A nil Run swallows nothing.
func (r *Run) Swallow() bool {
	if r == nil || r.current == "" || r.ctx.Err() == nil {
		return false
	}
	r.cut = true
	return true
}

// Report is the one warning naming what the deadline skipped ("" when
// every step ran).
func (r *Run) Report() string {
	if len(r.skipped) == 0 {
		return ""
	}
	return fmt.Sprintf("agentx %s: its deadline of %s passed; skipped: %s ([hooks] deadline in .agentx/agentx.toml sets it)",
		r.what, r.limit, strings.Join(r.skipped, ", "))
}
