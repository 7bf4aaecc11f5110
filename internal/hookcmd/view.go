package hookcmd

import (
	"context"
	"strconv"
)

const viewUsage = `view [--port N] [--host ADDR] [--open] [--stay]

Serves a read-only web view of this workspace on 127.0.0.1 (a free port
unless --port is given) and prints its address: the agents and what they
wait for, each issue's clarification threads, the wait-for graph with its
deadlock cycles, memory search and timelines with integrity marks, and the
weekly digest's charts. Pages follow the files as they change. The address
carries a token made for this run: only someone who has it can read.

It runs until Ctrl-C, or until the last tab showing it closes (--stay: only
Ctrl-C). It writes nothing under .agentx/. --host serves on another
address, which others on that network can reach: it warns. The view is the
separate binary agentx-view, so that agentx-hook, which every hook starts,
links no web server.`

// ViewOptions is `view`'s command line, as the server takes it.
type ViewOptions struct {
	Port int
	Host string
	Open bool
	Stay bool
}

func parseView(a *App, args []string) (*ViewOptions, error) {
	o := &ViewOptions{}
	flags := newFlags(a, "view", viewUsage)
	flags.IntVar(&o.Port, "port", 0, "serve on port `N` (default: a free one)")
	flags.StringVar(&o.Host, "host", "127.0.0.1", "serve on address `ADDR` (anything but loopback is reachable by others: it warns)")
	flags.BoolVar(&o.Open, "open", false, "open the view in the default browser")
	flags.BoolVar(&o.Stay, "stay", false, "keep serving when the last tab closes (until Ctrl-C)")
	if err := parseFlagsOnly(flags, args); err != nil {
		return o, err
	}
	if o.Port < 0 || o.Port > 65535 {
		return o, usagef("view: --port must be 0-65535, not %d", o.Port)
	}
	if o.Host == "" {
		return o, usagef("view: --host needs an address")
	}
	return o, nil
}

// ViewServer serves the web view (nil in agentx-hook: cmd/agentx-view
// sets it, via internal/viewcmd; agentx-hook runs that binary instead, as
// it does agentx-mcp).
var ViewServer func(ctx context.Context, a *App, o ViewOptions) error

// viewBinary is the executable that serves the view.
const viewBinary = "agentx-view"

func runView(ctx context.Context, a *App, o *ViewOptions) error {
	if ViewServer != nil {
		return ViewServer(ctx, a, *o)
	}
	args := []string{"view", "--port", strconv.Itoa(o.Port), "--host", o.Host}
	if o.Open {
		args = append(args, "--open")
	}
	if o.Stay {
		args = append(args, "--stay")
	}
	return forwardCompanion(ctx, a, viewBinary, "the web view", args)
}
