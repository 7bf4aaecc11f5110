package hookcmd

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
)

// recordMetrics appends a hook's or command's metrics line to the event
// log; weeklyFile set (a session's end in GitHub Mode, with a writer id),
// it also writes this machine's weekly file (metrics.Recorder).
func (a *App) recordMetrics(ctx context.Context, l metrics.Line, weeklyFile bool) {
	ws := a.Workspace()
	r := &metrics.Recorder{Log: a.Events(), Locks: a.Locks(), Dir: ws.MetricsDir(), Now: a.Clock.Now, Warn: a.warn,
		Writer: func() string {
			if cfg, err := a.Config(); err != nil || cfg == nil || cfg.Config.Mode != "github" {
				return ""
			}
			w, _ := statebranch.WriterID(ws.AgentxDir(), false, false)
			return w
		}}
	r.Record(ctx, l, weeklyFile)
}

// commandMetrics records a command's line with its lock waits, for
// commands that are not a hook session (compaction).
func (a *App) commandMetrics(ctx context.Context, l metrics.Line) {
	waited, timeouts := a.Locks().Stats()
	l.LockWaitMS, l.LockTimeouts = waited.Milliseconds(), timeouts
	a.recordMetrics(ctx, l, false)
}
