package hookcmd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/protocol"
)

const completionUsage = `completion bash|zsh|fish

Prints a shell completion script for commands and subcommands:
  bash  source <(agentx-hook completion bash)       (e.g. in ~/.bashrc)
  zsh   agentx-hook completion zsh > "${fpath[1]}/_agentx-hook"
  fish  agentx-hook completion fish > ~/.config/fish/completions/agentx-hook.fish`

type completionOptions struct{ Shell string }

func parseCompletion(a *App, args []string) (*completionOptions, error) {
	flags := newFlags(a, "completion", completionUsage)
	pos, err := parse(flags, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, usagef("completion needs one shell: bash, zsh or fish")
	}
	switch pos[0] {
	case "bash", "zsh", "fish":
	default:
		return nil, usagef("completion: unknown shell %q (bash, zsh, fish)%s", pos[0], didYouMean(pos[0], []string{"bash", "zsh", "fish"}))
	}
	return &completionOptions{Shell: pos[0]}, nil
}

// completionTree is each command with its subcommands, from the same
// tables the dispatcher uses, so a new command completes without an edit
// here.
func completionTree() (cmds []string, subs map[string][]string) {
	subs = map[string][]string{
		"hook":       {"start", "finish"},
		"hooks":      {"install", "uninstall", "status"},
		"completion": {"bash", "zsh", "fish"},
		"git-hook":   {"post-commit", "pre-push", "post-merge"},
	}
	clar := []string{string(protocol.Request), "stale"}
	for _, v := range protocol.Verbs {
		clar = append(clar, string(v.Verb))
	}
	subs["clarify"] = clar
	for name := range memorySubs() {
		subs["memory"] = append(subs["memory"], name)
	}
	for name := range checkpointSubs() {
		subs["checkpoint"] = append(subs["checkpoint"], name)
	}
	for k := range subs {
		sort.Strings(subs[k])
	}
	for _, c := range commands() {
		cmds = append(cmds, c.name)
	}
	return cmds, subs
}

func runCompletion(_ context.Context, a *App, o *completionOptions) error {
	cmds, subs := completionTree()
	keys := make([]string, 0, len(subs))
	for k := range subs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	switch o.Shell {
	case "bash":
		b.WriteString("# bash completion for agentx-hook\n_agentx_hook() {\n")
		b.WriteString("  local cur=${COMP_WORDS[COMP_CWORD]} words\n")
		b.WriteString("  if [ \"$COMP_CWORD\" -eq 1 ]; then\n")
		fmt.Fprintf(&b, "    words=%q\n", strings.Join(append(cmds, "--root", "--help", "--version"), " "))
		b.WriteString("  elif [ \"$COMP_CWORD\" -eq 2 ]; then\n    case ${COMP_WORDS[1]} in\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "      %s) words=%q ;;\n", k, strings.Join(subs[k], " "))
		}
		b.WriteString("    esac\n  fi\n  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\n")
		b.WriteString("complete -o default -F _agentx_hook agentx-hook\n")
	case "zsh":
		b.WriteString("#compdef agentx-hook\n_agentx_hook() {\n  if (( CURRENT == 2 )); then\n")
		fmt.Fprintf(&b, "    compadd -- %s\n", strings.Join(cmds, " "))
		b.WriteString("  elif (( CURRENT == 3 )); then\n    case $words[2] in\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "      %s) compadd -- %s ;;\n", k, strings.Join(subs[k], " "))
		}
		b.WriteString("      *) _files ;;\n    esac\n  else\n    _files\n  fi\n}\n_agentx_hook \"$@\"\n")
	case "fish":
		b.WriteString("# fish completion for agentx-hook\ncomplete -c agentx-hook -f\n")
		for _, c := range commands() {
			fmt.Fprintf(&b, "complete -c agentx-hook -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
		}
		for _, k := range keys {
			fmt.Fprintf(&b, "complete -c agentx-hook -n '__fish_seen_subcommand_from %s' -a %q\n", k, strings.Join(subs[k], " "))
		}
	}
	_, err := fmt.Fprint(a.Stdout, b.String())
	return err
}

func fishQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
