package hookcmd

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/ready"
)

func parseReady(a *App, args []string) (*jsonOnlyOptions, error) {
	return parseNoArgs("ready", "ready [--json]\n\nIssues known locally (clarification ledgers, memory, .agentx/issues/*.json), with\n[BLOCKED: Clarification pending] where a blocking clarification waits for an answer\nand [WAITING FOR A PERSON] where a blocking one was escalated.")(a, args)
}

func runReady(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	rt, err := a.Router()
	if err != nil {
		return err
	}
	rep, err := ready.Load(ctx, monitor.New(rt), a.Workspace())
	if err != nil {
		return err
	}
	a.printActions(rep.Monitor, true)
	a.warnEach(rep.Warnings...)
	return a.emit(o.JSON, &ready.Doc{Issues: rep.Issues}, rep.Text(a.Style()))
}
