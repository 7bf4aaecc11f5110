package hookcmd

import (
	"context"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/ready"
)

var parseReady = parseNoArgs("ready", "ready [--json]\n\nIssues known locally (clarification ledgers, memory, .agentx/issues/*.json), with\n[BLOCKED: Clarification pending] where a blocking clarification waits for an answer\nand [WAITING FOR A PERSON] where a blocking one was escalated.")

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
	for _, w := range rep.Warnings {
		a.warn("%s", w)
	}
	if o.JSON {
		return a.writeDoc(&ready.Doc{Issues: rep.Issues})
	}
	a.printReady(rep.Issues)
	return nil
}

// printReady prints `ready`'s lines: who an issue waits for, or ready.
func (a *App) printReady(list []*ready.Issue) {
	if len(list) == 0 {
		fmt.Fprintln(a.Stdout, "No issues known locally.")
		return
	}
	for _, ri := range list {
		line := ri.Line(a.Style())
		fmt.Fprintln(a.Stdout, line)
	}
}
