package hookcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/setup"
)

const setupUsage = `setup --claude|--codex|--copilot [--agent NAME] [--no-git-hooks] [--dry-run] [--check] [--remove] [--json]

Wires agentx into an agent host and git in one step, merging into the files
already there: every other setting and hook is kept, and a re-run changes
nothing.
  --claude   .claude/settings.json: SessionStart (hook start --format claude),
             SessionEnd and PreCompact (hook finish)
  --codex    .codex/hooks.json: SessionStart (hook start --format codex), Stop,
             PreCompact and SessionEnd (hook finish --format codex, quiet on
             stdout, which Codex reads as JSON); [features] hooks = true
             in .codex/config.toml (an older setup's deprecated codex_hooks
             goes); the MCP server in its [mcp_servers.agentx]
  --copilot  .github/hooks/agentx.json: sessionStart (hook start --format
             copilot), sessionEnd and agentStop (hook finish --event E), each
             with a bash and a powershell command; the MCP server in
             .github/mcp.json (Copilot CLI) and .vscode/mcp.json (VS Code)
Then the git hooks, as ` + "`hooks install`" + ` does (--no-git-hooks skips them).

Without --agent the commands name no agent: each session's agent comes from
$AGENTX_AGENT, else from the host's payload (Claude Code's agent_type for
` + "`claude --agent NAME`" + `), else [hooks] default_agent, so one shared settings
file serves every role. --agent NAME writes the name into the commands (a
file for one role only).
A file that is not valid JSON (or TOML) is reported and left untouched, and
then nothing is written. --dry-run prints the changes as a diff.

--check writes nothing and exits 1 when something would change, listing it
(exit 0: everything is in place). --remove undoes what setup added: our hook
entries (the user's other entries and keys stay), Codex's hooks flag
when no other hook in .codex/hooks.json needs it, and the git hooks when no
host file runs agentx any more; a file is removed only when nothing but what
setup wrote is left in it. --remove --check reports what --remove would do.`

// setupOptions is `setup`'s command line.
type setupOptions struct {
	setup.Options
	jsonFlag
	// printed: the --check document is out, so its failure must not print
	// a second one (wire asks jsonMode).
	printed bool
}

func (o *setupOptions) jsonMode() bool { return o.JSON && !o.printed }

func parseSetup(a *App, args []string) (*setupOptions, error) {
	o := &setupOptions{}
	flags := newFlags(a, "setup", setupUsage)
	flags.BoolVar(&o.Claude, "claude", false, "wire Claude Code (.claude/settings.json)")
	flags.BoolVar(&o.Codex, "codex", false, "wire Codex (.codex/hooks.json and .codex/config.toml)")
	flags.BoolVar(&o.Copilot, "copilot", false, "wire GitHub Copilot CLI (.github/hooks/agentx.json, .github/mcp.json)")
	flags.StringVar(&o.Agent, "agent", "", "write this agent `name` into the commands (default: $AGENTX_AGENT or the host payload at run time)")
	flags.BoolVar(&o.NoGitHooks, "no-git-hooks", false, "leave the git hooks alone")
	flags.BoolVar(&o.DryRun, "dry-run", false, "print the changes as a diff and write nothing")
	flags.BoolVar(&o.Check, "check", false, "write nothing; exit 1 when something would change")
	flags.BoolVar(&o.Remove, "remove", false, "undo what setup added, keeping everything else")
	o.register(flags)
	if err := parseFlagsOnly(flags, args); err != nil {
		return o, err
	}
	if err := o.Validate(); err != nil {
		return o, usagef("%v", err)
	}
	return o, nil
}

func runSetup(ctx context.Context, a *App, o *setupOptions) error {
	r, err := setup.Run(ctx, a.Workspace(), a.Config, o.Options)
	if err != nil {
		return err
	}
	doc, failure := r.Doc(o.Options, a.Workspace().Root)
	return a.reportChecked(o.JSON, &o.printed, doc, failure, func() {
		fmt.Fprint(a.Stdout, strings.Join(r.Lines(o.Options), ""))
		for _, n := range r.Notes {
			fmt.Fprintf(a.Stderr, "note: %s\n", n)
		}
	})
}
