package hookcmd

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/settled"
)

// rememberResolved is the router's Settled hook: a record just resolved
// (`clarify resolve`, the MCP tool) becomes one decision in memory, unless
// [memory] is off. The router reports an error as a warning.
func (a *App) rememberResolved(ctx context.Context, rec *ledger.Record) error {
	if !a.memoryOn() {
		return nil
	}
	_, err := settled.Remember(ctx, a.Memory(), *rec)
	return err
}

// catchUpDecisions is hook start's catch-up: the resolved records of the
// issue memory lacks (resolved on GitHub, or a resolve whose side effect
// did not run) are stored as decisions before recall reads the store.
func (a *App) catchUpDecisions(ctx context.Context, issue int) (int, error) {
	if !a.memoryOn() {
		return 0, nil
	}
	stored, err := settled.CatchUp(ctx, a.Ledgers(), a.Memory(), issue)
	return len(stored), err
}

// memoryOn reports whether [memory] is on (a configuration that does not
// load: off, nothing is written on its behalf).
func (a *App) memoryOn() bool {
	cfg, err := a.Config()
	return err == nil && cfg.Config.Memory.IsEnabled()
}
