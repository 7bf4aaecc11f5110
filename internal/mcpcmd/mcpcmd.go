// Package mcpcmd is the MCP server's command: it wires internal/mcpserver
// to an agentx-hook App (workspace, router, memory store, issue and
// warnings) for the agentx-mcp binary. It lives apart from hookcmd so that
// agentx-hook, which every hook and git hook starts, does not link the MCP
// SDK.
package mcpcmd

import (
	"context"
	"errors"
	"io"

	"github.com/agentx-dev/agentx/internal/core/doctor"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/session"
	"github.com/agentx-dev/agentx/internal/hookcmd"
	"github.com/agentx-dev/agentx/internal/iostreams"
	"github.com/agentx-dev/agentx/internal/jsonfilter"
	"github.com/agentx-dev/agentx/internal/mcpserver"
)

// Serve runs the MCP server over a's stdin and stdout as agent: the flag,
// else $AGENTX_AGENT, else [hooks] default_agent.
func Serve(ctx context.Context, a *hookcmd.App, agent string) error {
	rt, err := a.Router()
	if err != nil {
		return err
	}
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
		WS: a.Workspace(), Agent: agent, Config: rt.Config, Router: rt, Memory: a.Memory(), Version: hookcmd.BuildVersion(),
		Issue: func(ctx context.Context) (int, bool) {
			n, ok, err := a.IssueFor(ctx, "")
			return n, ok && err == nil
		},
		Warn:   a.Warn,
		Doctor: func(ctx context.Context) []doctor.Finding { return hookcmd.DoctorFindings(ctx, a) },
	}, mcpserver.Stdio(a.Stdin, iostreams.Raw(a.Stdout)))
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil // the host closed stdin, or a signal ended the session
	}
	return err
}

// Main runs agentx-mcp: agentx-hook's commands with the MCP server and
// the --jq/--template filter linked in; with no command (or flags only)
// it serves MCP.
func Main(args []string) int {
	hookcmd.MCPServer = Serve
	// --jq and --template: agentx-hook hands such a command line here.
	hookcmd.JSONFilter, hookcmd.JSONFilterCheck = jsonfilter.Apply, jsonfilter.Check
	return hookcmd.Main(withMCP(args))
}

// withMCP puts `mcp` in args when no command is named: agentx-mcp alone,
// or agentx-mcp --agent NAME, serves.
func withMCP(args []string) []string { return hookcmd.WithDefaultCommand(args, "mcp") }
