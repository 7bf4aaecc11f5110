package hookcmd

import (
	"context"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
	"github.com/agentx-dev/agentx/internal/core/setup"
)

const setupUsage = `setup --claude|--codex|--copilot [--agent NAME] [--no-git-hooks] [--dry-run] [--check] [--remove] [--json]

Wires agentx into an agent host and git in one step, merging into the files
already there: every other setting and hook is kept, and a re-run changes
nothing.
  --claude   .claude/settings.json: SessionStart (hook start --format claude),
             SessionEnd and PreCompact (hook finish)
  --codex    .codex/hooks.json: SessionStart (hook start --format codex), Stop
             and PreCompact (hook finish); and [features] codex_hooks = true in
             .codex/config.toml, which Codex needs to run hooks at all
  --copilot  .github/hooks/agentx.json: sessionEnd and agentStop (hook finish),
             each with a bash and a powershell command
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
entries (the user's other entries and keys stay), Codex's codex_hooks flag
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
	flags.BoolVar(&o.Copilot, "copilot", false, "wire GitHub Copilot (.github/hooks/agentx.json)")
	flags.StringVar(&o.Agent, "agent", "", "write this agent `name` into the commands (default: $AGENTX_AGENT or the host payload at run time)")
	flags.BoolVar(&o.NoGitHooks, "no-git-hooks", false, "leave the git hooks alone")
	flags.BoolVar(&o.DryRun, "dry-run", false, "print the changes as a diff and write nothing")
	flags.BoolVar(&o.Check, "check", false, "write nothing; exit 1 when something would change")
	flags.BoolVar(&o.Remove, "remove", false, "undo what setup added, keeping everything else")
	o.register(flags)
	pos, err := parse(flags, args)
	if err != nil {
		return o, err
	}
	if len(pos) > 0 {
		return o, usagef("setup takes no arguments (got %q)", pos[0])
	}
	if err := o.Validate(); err != nil {
		return o, usagef("%v", err)
	}
	return o, nil
}

type setupDoc struct {
	Check bool `json:"check"`
	// Error is set when --check found changes pending (exit 1).
	Error    *errorBody      `json:"error,omitempty"`
	DryRun   bool            `json:"dryRun"`
	Files    []setup.File    `json:"files"`
	GitHooks []githooks.Step `json:"gitHooks"`
	// InPlace is set when nothing would change (--check's answer).
	InPlace bool     `json:"inPlace"`
	Notes   []string `json:"notes"`
	Remove  bool     `json:"remove"`
	Root    string   `json:"root"`
	schemaVersion
}

func runSetup(ctx context.Context, a *App, o *setupOptions) error {
	r, err := setup.Run(ctx, a.Workspace(), a.Config, o.Options)
	if err != nil {
		return err
	}
	pending := r.Pending()
	doc := &setupDoc{Check: o.Check, DryRun: o.DryRun, Files: r.Files, GitHooks: nonNil(r.GitHooks),
		InPlace: pending == 0, Notes: nonNil(r.Notes), Remove: o.Remove, Root: a.Workspace().Root}
	var failure *errcode.Error
	if o.Check && pending > 0 {
		failure = errcode.New(errcode.NotFound, "setup --check: %d change%s pending", pending, plural(pending)).
			WithHint("`agentx-hook " + o.Command() + "` makes them")
	}
	return a.reportChecked(o.JSON, &o.printed, doc, &doc.Error, failure, func() { a.printSetup(o, r) })
}

func (a *App) printSetup(o *setupOptions, r *setup.Result) {
	for _, f := range r.Files {
		if o.DryRun && f.Diff != "" {
			fmt.Fprint(a.Stdout, f.Diff)
			continue
		}
		action := f.Action
		if o.Check && action != string(hostsettings.Unchanged) {
			action = "would be " + action
		}
		fmt.Fprintf(a.Stdout, "%-9s %s\n", action, f.Path)
	}
	verb := "git hook"
	if !o.Writes() {
		verb = "would git hook"
	}
	for _, st := range r.GitHooks {
		if st.Changes() || st.Kind == githooks.Conflict || st.Kind == githooks.Managed {
			fmt.Fprintf(a.Stdout, "%s %s: %s\n", verb, st.Hook, st.Kind)
		}
	}
	if o.Check && r.Pending() == 0 {
		fmt.Fprintln(a.Stdout, "everything is in place")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(a.Stderr, "note: %s\n", n)
	}
}
