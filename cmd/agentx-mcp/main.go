// Command agentx-mcp is agentx's MCP server: the clarification and memory
// tools for agent hosts over stdio (docs/mcp.md). `agentx-hook mcp` runs
// it; it is a binary of its own so that agentx-hook, started by every hook
// and git hook, does not link the MCP SDK.
package main

import (
	"os"

	"github.com/agentx-dev/agentx/internal/mcpcmd"
)

func main() { os.Exit(mcpcmd.Main(os.Args[1:])) }
