package hookcmd

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// completeCommand is the hidden command the completion scripts call for
// values only the workspace knows: `agentx-hook __complete ids|agents|issues
// [PREFIX]` prints one candidate a line. It never writes, never fails
// (nothing to offer is no output), and runs without the monitor.
const completeCommand = "__complete"

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
	sort.Strings(out)
	for _, c := range out {
		if strings.HasPrefix(c, prefix) {
			fmt.Fprintln(a.Stdout, c)
		}
	}
	return 0
}

// valueKinds are the flags and subcommands whose values __complete
// offers, for the completion scripts.
var valueKinds = []struct{ match, kind string }{
	{"--agent", "agents"}, {"--from", "agents"}, {"--to", "agents"}, {"--as", "agents"},
	{"--issue", "issues"},
}

// idSubcommands are the clarify verbs that take a clarification id first.
func idSubcommands() []string {
	var out []string
	for _, v := range protocol.Verbs {
		out = append(out, string(v.Verb))
	}
	return out
}
