// Command agentx-hook is the local agentx binary: lifecycle hooks, git
// hooks and the clarify/memory/digest command line.
package main

import (
	"os"

	"github.com/agentx-dev/agentx/internal/hookcmd"
)

func main() { os.Exit(hookcmd.Main(os.Args[1:])) }
