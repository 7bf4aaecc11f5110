package hookcmd

import (
	"context"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/retention"
)

// The retention policy ([retention] in agentx.toml, package retention) as
// the hooks and `memory compact --auto` apply it, `memory search
// --archived` and `memory restore`.

// retentionHooks wires retention for a hook's step, when it runs: the
// policy of [retention] (off when the configuration does not load).
func (a *App) retentionHooks() *retention.Hooks {
	var p retention.Policy
	if cfg, err := a.Config(); err == nil && cfg != nil {
		p = retention.FromConfig(cfg.Config.Retention)
	}
	return &retention.Hooks{Store: a.Memory(), Policy: p, Now: a.Clock.Now(), StateFile: a.Workspace().RetentionFile(),
		OldStateFile: a.Workspace().OldRetentionFile(), Warn: a.warn,
		Changed: func(ctx context.Context, r retention.Result) {
			// Its own line: retention runs after the session's line and push
			// (the next session's end folds it into the weekly file).
			a.recordMetrics(ctx, metrics.Line{Command: "hook finish retention", Issue: r.Issue, Counters: r.Counters()}, false)
		}}
}

// retainSlice and storeAlerts are the hooks' retention steps.
func (a *App) retainSlice(ctx context.Context)          { a.retentionHooks().Slice(ctx) }
func (a *App) storeAlerts(ctx context.Context) []string { return a.retentionHooks().Alerts(ctx) }

// runRetentionAll is `memory compact --auto`.
func runRetentionAll(ctx context.Context, a *App, o *memoryCompactOptions) error {
	cfg, err := a.Config()
	if err != nil {
		return err
	}
	p := retention.FromConfig(cfg.Config.Retention)
	autoCheckpoint(ctx, a, "before memory compact --auto")
	a.recallService().Fold(ctx) // recent recalls keep their observations
	res, err := retention.All(ctx, a.Memory(), p, a.Clock.Now())
	if err != nil {
		return err
	}
	if sum := retention.Sum(res); sum.Changed > 0 {
		a.commandMetrics(ctx, metrics.Line{Command: "memory compact --auto", Counters: sum.Counters()})
	}
	if o.JSON {
		return a.writeDoc(p.Doc(res))
	}
	for _, line := range retention.Lines(res, p) {
		fmt.Fprintln(a.Stdout, line)
	}
	return nil
}

// searchStoreOrArchive is `memory search`, or with --archived the search
// of the archive; with the stat data of the issue files the store's rows
// were read from (SearchFiles). skipped hears of each file left out
// because it could not be read (also warned of).
func (a *App) searchStoreOrArchive(ctx context.Context, q memory.Query, archived bool, skipped func(string) bool) ([]memory.Row, memory.FileStats, error) {
	st := a.Memory()
	st.Skipped = skipped
	if archived {
		rows, err := st.SearchArchived(ctx, q)
		return rows, nil, err
	}
	return st.SearchFiles(ctx, q)
}

func parseMemoryRestore(a *App, args []string) (*idOptions, error) {
	return parseID("restore", "memory restore ID [--json]\n\nBrings an archived observation (memory search --archived lists them) back into its issue file.")(a, args)
}

func runMemoryRestore(ctx context.Context, a *App, o *idOptions) error {
	autoCheckpoint(ctx, a, "before memory restore "+o.ID)
	obs, err := a.Memory().Restore(ctx, o.ID)
	if err != nil {
		return err
	}
	return a.emit(o.JSON, &memory.RestoredDoc{Restored: obs.ID, Issue: obs.IssueNumber},
		fmt.Sprintf("Restored %s into issue #%d.\n", obs.ID, obs.IssueNumber))
}
