package hookcmd

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/agentx-dev/agentx/internal/completion"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// completeCommand is the hidden command the completion scripts call for
// values only the workspace knows. It never writes, never fails (nothing
// to offer is no output), and runs without the monitor.
const completeCommand = completion.CompleteCommand

// runComplete prints the candidates of kind that start with prefix.
func runComplete(_ context.Context, a *App, args []string) int {
	if len(args) == 0 {
		return 0
	}
	prefix := ""
	if len(args) > 1 {
		prefix = args[1]
	}
	if _, err := os.Stat(a.Workspace().AgentxDir()); err != nil {
		return 0 // no workspace: nothing to offer, and nothing created
	}
	var out []string
	switch args[0] {
	case "ids": // open clarifications, for answer, ask, resolve, escalate, abandon, show
		recs, _ := a.records(func(r *ledger.Record) bool { return r.Status.Open() }, false)
		for _, r := range recs {
			out = append(out, r.ID)
		}
	case "agents":
		if cfg, err := a.Config(); err == nil {
			out = cfg.KnownAgentNames()
		}
	case "issues":
		seen := map[int]bool{}
		recs, _ := a.records(func(*ledger.Record) bool { return true }, false)
		for _, r := range recs {
			seen[r.IssueNumber] = true
		}
		if issues, err := a.Memory().Issues(); err == nil {
			for _, n := range issues {
				seen[n] = true
			}
		}
		for n := range seen {
			out = append(out, strconv.Itoa(n))
		}
	}
	for _, c := range completion.Matching(out, prefix) {
		fmt.Fprintln(a.Stdout, c)
	}
	return 0
}
