package hookcmd

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// Placeholder until the monitor lands (issue 3).
func runMonitor(context.Context, *App, []string) error {
	return errcode.New(errcode.InvalidInput, "monitor is not built yet")
}

func runReady(context.Context, *App, []string) error {
	return errcode.New(errcode.InvalidInput, "ready is not built yet")
}

func demoMonitor() []demoStep { return nil }
