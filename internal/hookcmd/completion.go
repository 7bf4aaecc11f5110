package hookcmd

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/agentx-dev/agentx/internal/completion"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/suggest"
)

const completionUsage = `completion bash|zsh|fish|powershell

Prints a shell completion script: commands, subcommands, every command's
flags and the fixed values of a flag such as --format (both read from the
flag definitions), and the values only the workspace knows (agent names after --agent, --from, --to, --as;
issue numbers after --issue; open clarification ids after clarify answer,
ask, resolve, escalate, abandon; artifact ids after artifact show, approve,
reject, ack, reopen), read when you press Tab:
  bash        source <(agentx-hook completion bash)       (e.g. in ~/.bashrc)
  zsh         agentx-hook completion zsh > "${fpath[1]}/_agentx-hook"
  fish        agentx-hook completion fish > ~/.config/fish/completions/agentx-hook.fish
  powershell  agentx-hook completion powershell | Out-String | Invoke-Expression   (e.g. in $PROFILE)`

type completionOptions struct{ Shell string }

func parseCompletion(a *App, args []string) (*completionOptions, error) {
	flags := newFlags(a, "completion", completionUsage)
	shell, err := parseOne(flags, args, "completion needs one shell: bash, zsh, fish or powershell")
	if err == nil && !slices.Contains(completion.Shells(), shell) {
		err = usagef("completion: unknown shell %q (bash, zsh, fish, powershell)%s", shell, suggest.DidYouMean(shell, completion.Shells()))
	}
	if err != nil {
		return nil, err
	}
	return &completionOptions{Shell: shell}, nil
}

// completionTree is each command with its subcommands, from the same
// tables the dispatcher uses, so a new command completes without an edit
// here.
func completionTree() completion.Tree {
	t := completion.Tree{Subs: map[string][]string{
		"hook":       {"start", "finish", "deliver"},
		"hooks":      {"install", "uninstall", "status"},
		"completion": completion.Shells(),
		"git-hook":   {"post-commit", "pre-push", "post-merge"},
	}}
	clar := []string{string(protocol.Request), "show", "stale", "inbox"}
	t.IDVerbs = append(t.IDVerbs, "show")
	for _, v := range protocol.Verbs {
		clar = append(clar, string(v.Verb))
		t.IDVerbs = append(t.IDVerbs, string(v.Verb))
	}
	t.Subs["clarify"] = clar
	t.Subs["memory"] = slices.Collect(maps.Keys(memorySubs()))
	t.Subs["checkpoint"] = slices.Collect(maps.Keys(checkpointSubs()))
	t.Subs["artifact"] = slices.Collect(maps.Keys(artifactSubs()))
	t.ArtifactVerbs = []string{"show", "approve", "reject", "ack", "reopen", "remove"}
	for _, sub := range t.Subs {
		slices.Sort(sub)
	}
	for _, c := range commands() {
		t.Commands = append(t.Commands, completion.Command{Name: c.name, Summary: c.summary})
	}
	t.Flags = commandFlags(t.Subs) // completionflags.go
	return t
}

func runCompletion(_ context.Context, a *App, o *completionOptions) error {
	_, err := fmt.Fprint(a.Stdout, completion.Script(o.Shell, completionTree()))
	return err
}
