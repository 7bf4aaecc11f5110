package hookcmd

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// Placeholder until the lifecycle hooks land (issue 3).
func runHook(context.Context, *App, []string) error {
	return errcode.New(errcode.InvalidInput, "hook is not built yet")
}
