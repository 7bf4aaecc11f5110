package hookcmd

import (
	"context"
	"errors"
	"io"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/session"
	"github.com/agentx-dev/agentx/internal/mcpserver"
)

const mcpUsage = `mcp [--agent NAME]

Serves the clarification and memory verbs as Model Context Protocol tools
over stdio (newline-delimited JSON-RPC on stdin and stdout), for an agent
host that loads MCP servers from the project (` + "`setup`" + ` registers it). The
server acts as one agent: --agent, else $AGENTX_AGENT, else [hooks]
default_agent in agentx.toml (else engineer). Warnings go to stderr.
See docs/mcp.md for the tools.`

// mcpOptions is `mcp`'s command line.
type mcpOptions struct {
	Agent string
}

func parseMCP(a *App, args []string) (*mcpOptions, error) {
	o := &mcpOptions{}
	flags := newFlags(a, "mcp", mcpUsage)
	flags.StringVar(&o.Agent, "agent", "", "the agent `NAME` the server acts as (else $AGENTX_AGENT, else [hooks] default_agent)")
	pos, err := parse(flags, args)
	if err == nil && len(pos) > 0 {
		err = usagef("mcp takes no arguments (got %q)", pos[0])
	}
	return o, err
}

func runMCP(ctx context.Context, a *App, o *mcpOptions) error {
	rt, err := a.Router()
	if err != nil {
		return err
	}
	agent := o.Agent
	if agent == "" {
		agent = a.Getenv("AGENTX_AGENT")
	}
	if agent == "" {
		agent = rt.Config.Config.Hooks.DefaultAgentOr()
	}
	if why, ok := session.AgentAccepted(agent, rt.Config); !ok {
		return errcode.New(errcode.InvalidInput, "%s", why)
	}
	err = mcpserver.Run(ctx, mcpserver.Options{
		WS: a.Workspace(), Agent: agent, Config: rt.Config, Router: rt, Memory: a.Memory(), Version: buildVersion().Version,
		Issue: func(ctx context.Context) (int, bool) {
			n, ok, err := a.issueFor(ctx, "")
			return n, ok && err == nil
		},
		Warn: a.warn,
	}, mcpserver.Stdio(a.Stdin, a.Stdout))
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil // the host closed stdin, or a signal ended the session
	}
	return err
}
