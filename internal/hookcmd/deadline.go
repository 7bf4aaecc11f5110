package hookcmd

import (
	"context"
	"time"

	"github.com/agentx-dev/agentx/internal/core/hooklog"
	"github.com/agentx-dev/agentx/internal/core/session"
)

// startHookRun starts the deadline of the hook e names, begun at start,
// and makes a's warnings aware of it. The returned function ends it: the
// one warning naming what the deadline skipped, then the run logged with
// its warnings (doctor reads the log: a host hides a successful hook's
// stderr), then the deadline released.
func (a *App) startHookRun(ctx context.Context, start time.Time, limit time.Duration, e hooklog.Entry) (*session.Run, func()) {
	r, cancel := session.NewRun(ctx, e.Command, start, limit)
	a.hook = r
	return r, func() {
		if msg := r.Report(); msg != "" {
			a.hook = nil
			a.warn("%s", msg)
		}
		a.logHookRun(e, start)
		cancel()
		if a.hook == r {
			a.hook = nil
		}
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
