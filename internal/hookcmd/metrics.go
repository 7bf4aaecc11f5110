package hookcmd

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
)

// recordMetrics appends a hook's or command's metrics line to the event
// log; weeklyFile set (a session's end in GitHub Mode, with a writer id),
// it also folds the week's lines into this machine's weekly file, which the
// push that follows carries to the state branch. What fails is a warning.
func (a *App) recordMetrics(ctx context.Context, l metrics.Line, weeklyFile bool) {
	l.Lines = 1
	if err := a.Events().Append(ctx, metrics.EventType, l); err != nil {
		a.warn("agentx %s: metrics not logged: %v", l.Command, err)
		return
	}
	cfg, err := a.Config()
	if !weeklyFile || err != nil || cfg == nil || cfg.Config.Mode != "github" {
		return
	}
	ws := a.Workspace()
	writer, err := statebranch.WriterID(ws.AgentxDir(), false, false)
	if err != nil || writer == "" {
		return // no sync yet: the first one makes the id, the next session's end the file
	}
	now := a.Clock.Now()
	evs, _, err := a.Events().Read(metrics.WeekStart(now).AddDate(0, 0, -7))
	if err == nil {
		_, err = metrics.UpdateWeeks(ctx, a.Locks(), ws.MetricsDir(), writer, evs, now)
	}
	if err != nil {
		a.warn("agentx %s: weekly metrics not written: %v", l.Command, err)
	}
}

// commandMetrics records a command's line with its lock waits, for
// commands that are not a hook session (compaction).
func (a *App) commandMetrics(ctx context.Context, l metrics.Line) {
	waited, timeouts := a.Locks().Stats()
	l.LockWaitMS, l.LockTimeouts = waited.Milliseconds(), timeouts
	a.recordMetrics(ctx, l, false)
}
