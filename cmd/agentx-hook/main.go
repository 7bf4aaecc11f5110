// The runtime's GOMAXPROCS updater (Go 1.25) is a goroutine started in
// every process, and so a thread woken, before main: about 0.035 ms of
// the 1.5 ms an agentx-hook process costs (issue 35). It follows a change
// of the CPU limit or affinity during a process's life; an agentx-hook
// process lives milliseconds to minutes, and GOMAXPROCS at start is
// unchanged (the limit is still read then; $GOMAXPROCS still wins).
//
//go:debug updatemaxprocs=0

// Command agentx-hook is the local agentx binary: lifecycle hooks, git
// hooks and the clarify/memory/digest command line.
package main

import (
	"os"

	"github.com/agentx-dev/agentx/internal/hookcmd"
)

func main() { os.Exit(hookcmd.Main(os.Args[1:])) }
