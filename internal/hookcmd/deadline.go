package hookcmd

import (
	"context"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/config"
)

// hookRun is one hook's overall deadline ([hooks] deadline, or --deadline).
// The hook's steps (state pull, monitor, agent status, memory recall or
// capture, state push) each run through step, with the deadline's context:
// a step not begun when it passes is skipped, and one that was waiting
// (on a lock, on the network) gives up, since everything that waits takes
// the context. What a step had begun writing still finishes: writes are
// atomic and never interrupted. The hook then prints its output, one
// warning naming the steps not done, and exits 0.
type hookRun struct {
	ctx     context.Context
	limit   time.Duration
	what    string // "hook start", "git-hook pre-push"
	current string // the step running, "" between steps
	cut     bool   // the current step warned after the deadline passed
	skipped []string
}

// startHookRun starts the deadline of a hook begun at start and makes a's
// warnings aware of it. The returned function ends it.
func (a *App) startHookRun(ctx context.Context, what string, start time.Time, limit time.Duration) (*hookRun, context.CancelFunc) {
	ctx, cancel := context.WithDeadline(ctx, start.Add(limit))
	r := &hookRun{ctx: ctx, limit: limit, what: what}
	a.hook = r
	return r, func() {
		cancel()
		if a.hook == r {
			a.hook = nil
		}
	}
}

// step runs fn unless the deadline has passed.
func (r *hookRun) step(name string, fn func(ctx context.Context)) {
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

// rename renames a skipped step in the report (what became of it).
func (r *hookRun) rename(name, to string) {
	for i, s := range r.skipped {
		if s == name {
			r.skipped[i] = to
		}
	}
}

// swallow reports whether a warning of the current step is the deadline's
// doing: once it passed, what a step says about giving up is said once, by
// report, for every step.
func (r *hookRun) swallow() bool {
	if r == nil || r.current == "" || r.ctx.Err() == nil {
		return false
	}
	r.cut = true
	return true
}

// report is the one warning line naming what the deadline skipped.
func (a *App) reportHookRun(r *hookRun) {
	if len(r.skipped) == 0 {
		return
	}
	a.hook = nil
	a.warn("agentx %s: its deadline of %s passed; skipped: %s ([hooks] deadline in .agentx/agentx.toml sets it)",
		r.what, r.limit, strings.Join(r.skipped, ", "))
}

// hookDeadline is the deadline a hook runs under: flag, else [hooks]
// deadline, else the default.
func (a *App) hookDeadline(flag time.Duration) time.Duration {
	if flag > 0 {
		return flag
	}
	cfg, err := a.Config()
	if err != nil {
		return config.DefaultHookDeadline
	}
	return cfg.Config.Hooks.DeadlineOr()
}
