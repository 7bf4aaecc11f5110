// Package actioncmd is the entry point of agentx-action, the Docker GitHub
// Action that mirrors clarification ledgers to issues (GitHub Mode).
package actioncmd

import (
	"fmt"
	"os"
)

// Main runs the action and returns its exit status.
func Main(args []string) int {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		usage()
		return 0
	}
	usage()
	fmt.Fprintln(os.Stderr, "error: usage: GitHub Mode commands (sync, ingest, monitor) are not built yet")
	return 2
}

func usage() {
	fmt.Println("agentx-action: GitHub Mode for agentx (runs inside the Docker action)")
	fmt.Println("Usage: agentx-action   (inputs come from INPUT_* as GitHub Actions sets them)")
	fmt.Println("Commands (input `command`): sync, ingest, monitor")
}
