package hookcmd

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// Placeholder until the memory store lands (issue 4).
func runMemory(context.Context, *App, []string) error {
	return errcode.New(errcode.InvalidInput, "memory is not built yet")
}

func demoMemory() []demoStep { return nil }
