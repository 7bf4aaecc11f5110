package router

import (
	"context"
	"slices"

	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// settle hands a record the operation just resolved to Settled, which
// keeps the decision in memory (package settled, wired by the commands:
// the router may not import the memory half). It runs after the ledger
// write, like every side effect, and a failure is a warning: the record
// is resolved either way, and the next `hook start` on its issue stores
// the decision it lacks.
func (r *Router) settle(ctx context.Context, eff *protocol.Effects) {
	if r.Settled == nil || eff.Record.Status != ledger.Resolved || !slices.Contains(eff.Events, events.ClarificationResolved) {
		return
	}
	r.warn(r.Settled(ctx, &eff.Record), "decision of "+eff.Record.ID+" not kept in memory")
}
