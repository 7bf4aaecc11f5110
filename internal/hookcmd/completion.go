package hookcmd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/protocol"
)

const completionUsage = `completion bash|zsh|fish|powershell

Prints a shell completion script: commands, subcommands, and the values
only the workspace knows (agent names after --agent, --from, --to, --as;
issue numbers after --issue; open clarification ids after clarify answer,
ask, resolve, escalate, abandon), read when you press Tab:
  bash        source <(agentx-hook completion bash)       (e.g. in ~/.bashrc)
  zsh         agentx-hook completion zsh > "${fpath[1]}/_agentx-hook"
  fish        agentx-hook completion fish > ~/.config/fish/completions/agentx-hook.fish
  powershell  agentx-hook completion powershell | Out-String | Invoke-Expression   (e.g. in $PROFILE)`

type completionOptions struct{ Shell string }

func parseCompletion(a *App, args []string) (*completionOptions, error) {
	flags := newFlags(a, "completion", completionUsage)
	pos, err := parse(flags, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, usagef("completion needs one shell: bash, zsh, fish or powershell")
	}
	switch pos[0] {
	case "bash", "zsh", "fish", "powershell":
	default:
		return nil, usagef("completion: unknown shell %q (bash, zsh, fish, powershell)%s", pos[0], didYouMean(pos[0], []string{"bash", "zsh", "fish", "powershell"}))
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
		"completion": {"bash", "zsh", "fish", "powershell"},
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
		bashCompletion(&b, cmds, subs, keys)
	case "zsh":
		zshCompletion(&b, cmds, subs, keys)
	case "fish":
		fishCompletion(&b, subs, keys)
	case "powershell":
		powershellCompletion(&b, cmds, subs, keys)
	}
	_, err := fmt.Fprint(a.Stdout, b.String())
	return err
}

// valueFlags is the flags of kind, joined by sep.
func valueFlags(kind, sep string) string {
	var out []string
	for _, v := range valueKinds {
		if v.kind == kind {
			out = append(out, v.match)
		}
	}
	return strings.Join(out, sep)
}

func bashCompletion(b *strings.Builder, cmds []string, subs map[string][]string, keys []string) {
	b.WriteString("# bash completion for agentx-hook\n_agentx_hook() {\n")
	b.WriteString("  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words\n")
	b.WriteString("  case $prev in\n")
	fmt.Fprintf(b, "    %s) COMPREPLY=($(agentx-hook %s agents \"$cur\" 2>/dev/null)); return ;;\n", valueFlags("agents", "|"), completeCommand)
	fmt.Fprintf(b, "    %s) COMPREPLY=($(agentx-hook %s issues \"$cur\" 2>/dev/null)); return ;;\n", valueFlags("issues", "|"), completeCommand)
	b.WriteString("  esac\n")
	b.WriteString("  if [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(b, "    words=%q\n", strings.Join(append(cmds, "--root", "--help", "--version"), " "))
	b.WriteString("  elif [ \"$COMP_CWORD\" -eq 2 ]; then\n    case ${COMP_WORDS[1]} in\n")
	for _, k := range keys {
		fmt.Fprintf(b, "      %s) words=%q ;;\n", k, strings.Join(subs[k], " "))
	}
	b.WriteString("    esac\n")
	fmt.Fprintf(b, "  elif [ \"$COMP_CWORD\" -eq 3 ] && [ \"${COMP_WORDS[1]}\" = clarify ]; then\n    case ${COMP_WORDS[2]} in\n      %s) COMPREPLY=($(agentx-hook %s ids \"$cur\" 2>/dev/null)); return ;;\n    esac\n",
		strings.Join(idSubcommands(), "|"), completeCommand)
	b.WriteString("  fi\n  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\n")
	b.WriteString("complete -o default -F _agentx_hook agentx-hook\n")
}

func zshCompletion(b *strings.Builder, cmds []string, subs map[string][]string, keys []string) {
	b.WriteString("#compdef agentx-hook\n_agentx_hook() {\n  case $words[CURRENT-1] in\n")
	fmt.Fprintf(b, "    %s) compadd -- ${(f)\"$(agentx-hook %s agents 2>/dev/null)\"}; return ;;\n", valueFlags("agents", "|"), completeCommand)
	fmt.Fprintf(b, "    %s) compadd -- ${(f)\"$(agentx-hook %s issues 2>/dev/null)\"}; return ;;\n", valueFlags("issues", "|"), completeCommand)
	b.WriteString("  esac\n  if (( CURRENT == 2 )); then\n")
	fmt.Fprintf(b, "    compadd -- %s\n", strings.Join(cmds, " "))
	b.WriteString("  elif (( CURRENT == 3 )); then\n    case $words[2] in\n")
	for _, k := range keys {
		fmt.Fprintf(b, "      %s) compadd -- %s ;;\n", k, strings.Join(subs[k], " "))
	}
	b.WriteString("      *) _files ;;\n    esac\n")
	fmt.Fprintf(b, "  elif (( CURRENT == 4 )) && [[ $words[2] == clarify ]] && [[ $words[3] == (%s) ]]; then\n    compadd -- ${(f)\"$(agentx-hook %s ids 2>/dev/null)\"}\n",
		strings.Join(idSubcommands(), "|"), completeCommand)
	b.WriteString("  else\n    _files\n  fi\n}\n_agentx_hook \"$@\"\n")
}

func fishCompletion(b *strings.Builder, subs map[string][]string, keys []string) {
	b.WriteString("# fish completion for agentx-hook\ncomplete -c agentx-hook -f\n")
	for _, c := range commands() {
		fmt.Fprintf(b, "complete -c agentx-hook -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, k := range keys {
		fmt.Fprintf(b, "complete -c agentx-hook -n '__fish_seen_subcommand_from %s' -a %q\n", k, strings.Join(subs[k], " "))
	}
	for _, v := range valueKinds {
		fmt.Fprintf(b, "complete -c agentx-hook -l %s -x -a '(agentx-hook %s %s)'\n", strings.TrimPrefix(v.match, "--"), completeCommand, v.kind)
	}
	fmt.Fprintf(b, "complete -c agentx-hook -n '__fish_seen_subcommand_from %s' -a '(agentx-hook %s ids)'\n", strings.Join(idSubcommands(), " "), completeCommand)
}

func powershellCompletion(b *strings.Builder, cmds []string, subs map[string][]string, keys []string) {
	b.WriteString("# PowerShell completion for agentx-hook\n")
	b.WriteString("Register-ArgumentCompleter -Native -CommandName agentx-hook -ScriptBlock {\n")
	b.WriteString("  param($wordToComplete, $commandAst, $cursorPosition)\n")
	b.WriteString("  $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })\n")
	b.WriteString("  if ($wordToComplete -ne '') { $words = $words[0..($words.Count - 2)] }\n")
	b.WriteString("  $prev = $words[-1]\n  $candidates = @()\n")
	fmt.Fprintf(b, "  if (@(%s) -contains $prev) { $candidates = @(agentx-hook %s agents 2>$null) }\n", psList(valueFlags("agents", " ")), completeCommand)
	fmt.Fprintf(b, "  elseif ($prev -eq '--issue') { $candidates = @(agentx-hook %s issues 2>$null) }\n", completeCommand)
	fmt.Fprintf(b, "  elseif ($words.Count -eq 1) { $candidates = @(%s) }\n", psList(strings.Join(append(cmds, "--root", "--help", "--version"), " ")))
	b.WriteString("  elseif ($words.Count -eq 2) {\n    switch ($words[1]) {\n")
	for _, k := range keys {
		fmt.Fprintf(b, "      '%s' { $candidates = @(%s) }\n", k, psList(strings.Join(subs[k], " ")))
	}
	b.WriteString("    }\n  }\n")
	fmt.Fprintf(b, "  elseif ($words.Count -eq 3 -and $words[1] -eq 'clarify' -and @(%s) -contains $words[2]) { $candidates = @(agentx-hook %s ids 2>$null) }\n",
		psList(strings.Join(idSubcommands(), " ")), completeCommand)
	b.WriteString("  $candidates | Where-Object { $_ -like \"$wordToComplete*\" } | ForEach-Object {\n")
	b.WriteString("    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)\n  }\n}\n")
}

// psList is space-separated words as a PowerShell array's items.
func psList(words string) string {
	items := strings.Fields(words)
	for i, w := range items {
		items[i] = "'" + strings.ReplaceAll(w, "'", "''") + "'"
	}
	return strings.Join(items, ", ")
}

func fishQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
