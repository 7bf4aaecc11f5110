package hookcmd

import (
	"context"
	"time"

	"github.com/agentx-dev/agentx/internal/core/session"
)

// startHookRun starts the deadline of a hook begun at start and makes a's
// warnings aware of it (a step cut short by the deadline says so once,
// in reportHookRun). The returned function ends it.
func (a *App) startHookRun(ctx context.Context, what string, start time.Time, limit time.Duration) (*session.Run, context.CancelFunc) {
	r, cancel := session.NewRun(ctx, what, start, limit)
	a.hook = r
	return r, func() {
		cancel()
		if a.hook == r {
			a.hook = nil
		}
	}
}

// reportHookRun is the one warning line naming what the deadline skipped.
func (a *App) reportHookRun(r *session.Run) {
	if msg := r.Report(); msg != "" {
		a.hook = nil
		a.warn("%s", msg)
	}
}

// hookDeadline is the deadline a hook runs under: flag, else [hooks]
// deadline, else the default.
func (a *App) hookDeadline(flag time.Duration) time.Duration {
	if flag > 0 {
		return flag
	}
	return a.settings().Hooks.DeadlineOr()
}
