package hookcmd

import (
	"context"
	"fmt"
	"os"

	"github.com/agentx-dev/agentx/internal/completion"
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
	out := completion.Values(args[0], completion.Sources{Ledgers: a.Ledgers(), Config: a.Config,
		MemoryIssues: func() ([]int, error) { return a.Memory().Issues() },
		Artifacts: func() ([]string, error) {
			files, _, err := a.Artifacts().LoadAll()
			var ids []string
			for _, f := range files {
				for _, art := range f.Artifacts {
					ids = append(ids, art.ID)
				}
			}
			return ids, err
		}})
	for _, c := range completion.Matching(out, prefix) {
		fmt.Fprintln(a.Stdout, c)
	}
	return 0
}
