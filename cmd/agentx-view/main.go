// Command agentx-view is agentx's local, read-only web view of a workspace
// (`agentx-hook view` runs it). It is a binary of its own so that
// agentx-hook, started by every hook and git hook, links no web server.
package main

import (
	"os"

	"github.com/agentx-dev/agentx/internal/viewcmd"
)

func main() { os.Exit(viewcmd.Main(os.Args[1:])) }
