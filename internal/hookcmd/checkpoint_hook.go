package hookcmd

import "context"

// checkpointer takes a checkpoint of the workspace's durable state before
// an operation that rewrites files (`verify --repair`), so the repair can
// be undone. Package checkpoint provides it (issue 13's other half).
type checkpointer interface {
	Create(ctx context.Context, reason string) error
}

// newCheckpointer returns the checkpointer of a's workspace; nil until the
// checkpoint package is wired here, and then a checkpoint is skipped.
var newCheckpointer func(a *App) checkpointer

// checkpointBefore takes the checkpoint an operation needs first; an error
// stops the operation (a repair without its undo is not made).
func checkpointBefore(ctx context.Context, a *App, reason string) error {
	if newCheckpointer == nil {
		return nil
	}
	cp := newCheckpointer(a)
	if cp == nil {
		return nil
	}
	return cp.Create(ctx, reason)
}
