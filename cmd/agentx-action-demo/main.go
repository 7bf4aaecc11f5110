// Command agentx-action-demo is the tour of GitHub Mode against an
// in-process fake GitHub (see package actiondemo). It is separate from
// agentx-action so the production binary links no test fake.
package main

import (
	"os"

	"github.com/agentx-dev/agentx/internal/actiondemo"
)

func main() { os.Exit(actiondemo.Main(os.Args[1:])) }
