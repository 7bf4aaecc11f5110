package hookcmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/checkpoint"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
)

// checkpointBefore takes the checkpoint an operation that rewrites files
// needs first (`verify --repair`), so that it can be undone. Outside a git
// repository there is nowhere to keep one: a warning, and the operation
// goes on, as the automatic checkpoints do (autoCheckpoint). Any other
// failure stops the operation: a repair without its undo is not made.
func checkpointBefore(ctx context.Context, a *App, reason string) error {
	s, err := a.checkpoints(0)
	if errors.Is(err, gitstore.ErrNotRepository) {
		a.warn("no checkpoint taken %s: %v", reason, err)
		return nil
	}
	var res *checkpoint.Result
	if err == nil {
		res, err = s.Create(ctx, reason, a.keepCheckpoints())
	}
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", reason, err)
	}
	a.auditCheckpoint(ctx, res, reason)
	return nil
}
