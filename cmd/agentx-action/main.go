// Command agentx-action is the GitHub Action entry point (GitHub Mode).
package main

import (
	"os"

	"github.com/agentx-dev/agentx/internal/actioncmd"
)

func main() { os.Exit(actioncmd.Main(os.Args[1:])) }
