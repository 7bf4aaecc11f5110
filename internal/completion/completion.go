// Package completion writes agentx-hook's shell completion scripts (bash,
// zsh, fish, PowerShell) from the command tree the dispatcher knows. The
// values only a workspace knows (agent names, issue numbers, open
// clarification ids) the scripts ask of `agentx-hook __complete` when Tab
// is pressed.
package completion

import (
	"fmt"
	"sort"
	"strings"
)

// CompleteCommand is the hidden command the completion scripts call for
// values only the workspace knows: `agentx-hook __complete ids|agents|issues
// [PREFIX]` prints one candidate a line.
const CompleteCommand = "__complete"

// Shells are the shells Script writes for.
func Shells() []string { return []string{"bash", "zsh", "fish", "powershell"} }

// Command is one top-level command and its one-line summary.
type Command struct{ Name, Summary string }

// Tree is what the scripts complete.
type Tree struct {
	Commands []Command
	// Subs are each command's subcommands.
	Subs map[string][]string
	// IDVerbs are the clarify verbs that take a clarification id first.
	IDVerbs []string
	// ArtifactVerbs are the artifact subcommands that take an artifact id.
	ArtifactVerbs []string
	// Flags are each command's flags, by "COMMAND" or "COMMAND SUB",
	// read from the flag definitions themselves (hookcmd).
	Flags map[string][]Flag
}

// Flag is one flag of a command: its name with dashes, whether it takes
// a value, and the values it accepts when they are a fixed list.
type Flag struct {
	Name   string
	Usage  string
	Value  bool
	Values []string
}

// flagKeys are t.Flags' keys, sorted, longest first: a "COMMAND SUB" key
// is tried before its "COMMAND".
func (t Tree) flagKeys() []string {
	keys := make([]string, 0, len(t.Flags))
	for k := range t.Flags {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if ni, nj := strings.Count(keys[i], " "), strings.Count(keys[j], " "); ni != nj {
			return ni > nj
		}
		return keys[i] < keys[j]
	})
	return keys
}

// flagNames are the flags of key, space-separated.
func (t Tree) flagNames(key string) string {
	var out []string
	for _, f := range t.Flags[key] {
		out = append(out, f.Name)
	}
	return strings.Join(out, " ")
}

// enum is a flag with a fixed list of values, under its command key.
type enum struct {
	key, flag string
	values    []string
}

// enums are the flags with a fixed list of values, "COMMAND SUB" keys
// first (the same flag name can take other values in another command).
func (t Tree) enums() []enum {
	var out []enum
	for _, k := range t.flagKeys() {
		for _, f := range t.Flags[k] {
			if len(f.Values) > 0 {
				out = append(out, enum{k, f.Name, f.Values})
			}
		}
	}
	return out
}

// Script is the completion script of shell ("" for a shell not in Shells).
func Script(shell string, t Tree) string {
	cmds := make([]string, 0, len(t.Commands))
	for _, c := range t.Commands {
		cmds = append(cmds, c.Name)
	}
	keys := make([]string, 0, len(t.Subs))
	for k := range t.Subs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	switch shell {
	case "bash":
		bash(&b, t, cmds, keys)
	case "zsh":
		zsh(&b, t, cmds, keys)
	case "fish":
		fish(&b, t, keys)
	case "powershell":
		powershell(&b, t, cmds, keys)
	}
	return b.String()
}

// valueKinds are the flags and subcommands whose values CompleteCommand
// offers, for the completion scripts.
var valueKinds = []struct{ match, kind string }{
	{"--agent", "agents"}, {"--from", "agents"}, {"--to", "agents"}, {"--as", "agents"},
	{"--issue", "issues"},
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

func bash(b *strings.Builder, t Tree, cmds, keys []string) {
	b.WriteString("# bash completion for agentx-hook\n_agentx_hook() {\n")
	b.WriteString("  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words\n")
	b.WriteString("  case $prev in\n")
	fmt.Fprintf(b, "    %s) COMPREPLY=($(agentx-hook %s agents \"$cur\" 2>/dev/null)); return ;;\n", valueFlags("agents", "|"), CompleteCommand)
	fmt.Fprintf(b, "    %s) COMPREPLY=($(agentx-hook %s issues \"$cur\" 2>/dev/null)); return ;;\n", valueFlags("issues", "|"), CompleteCommand)
	b.WriteString("  esac\n")
	// A flag's fixed values, for COMMAND SUB, else COMMAND.
	for _, sub := range []bool{true, false} {
		if sub {
			b.WriteString("  case \"${COMP_WORDS[1]} ${COMP_WORDS[2]} $prev\" in\n")
		} else {
			b.WriteString("  case \"${COMP_WORDS[1]} $prev\" in\n")
		}
		for _, e := range t.enums() {
			if strings.Contains(e.key, " ") == sub {
				fmt.Fprintf(b, "    %q) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", e.key+" "+e.flag, strings.Join(e.values, " "))
			}
		}
		b.WriteString("  esac\n")
	}
	// Flags, from the flag definitions: for COMMAND SUB, else COMMAND.
	b.WriteString("  if [ \"$COMP_CWORD\" -ge 2 ] && [ \"${cur#-}\" != \"$cur\" ]; then\n    case \"${COMP_WORDS[1]} ${COMP_WORDS[2]}\" in\n")
	for _, k := range t.flagKeys() {
		if strings.Contains(k, " ") {
			fmt.Fprintf(b, "      %q) words=%q ;;\n", k, t.flagNames(k))
		}
	}
	b.WriteString("      *) case ${COMP_WORDS[1]} in\n")
	for _, k := range t.flagKeys() {
		if !strings.Contains(k, " ") {
			fmt.Fprintf(b, "          %s) words=%q ;;\n", k, t.flagNames(k))
		}
	}
	b.WriteString("        esac ;;\n    esac\n    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\")); return\n  fi\n")
	b.WriteString("  if [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(b, "    words=%q\n", strings.Join(append(cmds, "--root", "--help", "--version"), " "))
	b.WriteString("  elif [ \"$COMP_CWORD\" -eq 2 ]; then\n    case ${COMP_WORDS[1]} in\n")
	for _, k := range keys {
		fmt.Fprintf(b, "      %s) words=%q ;;\n", k, strings.Join(t.Subs[k], " "))
	}
	b.WriteString("    esac\n")
	fmt.Fprintf(b, "  elif [ \"$COMP_CWORD\" -eq 3 ] && [ \"${COMP_WORDS[1]}\" = clarify ]; then\n    case ${COMP_WORDS[2]} in\n      %s) COMPREPLY=($(agentx-hook %s ids \"$cur\" 2>/dev/null)); return ;;\n    esac\n",
		strings.Join(t.IDVerbs, "|"), CompleteCommand)
	if len(t.ArtifactVerbs) > 0 {
		fmt.Fprintf(b, "  elif [ \"$COMP_CWORD\" -eq 3 ] && [ \"${COMP_WORDS[1]}\" = artifact ]; then\n    case ${COMP_WORDS[2]} in\n      %s) COMPREPLY=($(agentx-hook %s artifacts \"$cur\" 2>/dev/null)); return ;;\n    esac\n",
			strings.Join(t.ArtifactVerbs, "|"), CompleteCommand)
	}
	b.WriteString("  fi\n  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\n")
	b.WriteString("complete -o default -F _agentx_hook agentx-hook\n")
}

func zsh(b *strings.Builder, t Tree, cmds, keys []string) {
	b.WriteString("#compdef agentx-hook\n_agentx_hook() {\n  case $words[CURRENT-1] in\n")
	fmt.Fprintf(b, "    %s) compadd -- ${(f)\"$(agentx-hook %s agents 2>/dev/null)\"}; return ;;\n", valueFlags("agents", "|"), CompleteCommand)
	fmt.Fprintf(b, "    %s) compadd -- ${(f)\"$(agentx-hook %s issues 2>/dev/null)\"}; return ;;\n", valueFlags("issues", "|"), CompleteCommand)
	b.WriteString("  esac\n")
	for _, sub := range []bool{true, false} {
		if sub {
			b.WriteString("  case \"$words[2] $words[3] $words[CURRENT-1]\" in\n")
		} else {
			b.WriteString("  case \"$words[2] $words[CURRENT-1]\" in\n")
		}
		for _, e := range t.enums() {
			if strings.Contains(e.key, " ") == sub {
				fmt.Fprintf(b, "    %q) compadd -- %s; return ;;\n", e.key+" "+e.flag, strings.Join(e.values, " "))
			}
		}
		b.WriteString("  esac\n")
	}
	b.WriteString("  if (( CURRENT >= 3 )) && [[ $words[CURRENT] == -* ]]; then\n    case \"$words[2] $words[3]\" in\n")
	for _, k := range t.flagKeys() {
		if strings.Contains(k, " ") {
			fmt.Fprintf(b, "      %q) compadd -- %s; return ;;\n", k, t.flagNames(k))
		}
	}
	b.WriteString("    esac\n    case $words[2] in\n")
	for _, k := range t.flagKeys() {
		if !strings.Contains(k, " ") {
			fmt.Fprintf(b, "      %s) compadd -- %s; return ;;\n", k, t.flagNames(k))
		}
	}
	b.WriteString("    esac\n  fi\n")
	b.WriteString("  if (( CURRENT == 2 )); then\n")
	fmt.Fprintf(b, "    compadd -- %s\n", strings.Join(cmds, " "))
	b.WriteString("  elif (( CURRENT == 3 )); then\n    case $words[2] in\n")
	for _, k := range keys {
		fmt.Fprintf(b, "      %s) compadd -- %s ;;\n", k, strings.Join(t.Subs[k], " "))
	}
	b.WriteString("      *) _files ;;\n    esac\n")
	fmt.Fprintf(b, "  elif (( CURRENT == 4 )) && [[ $words[2] == clarify ]] && [[ $words[3] == (%s) ]]; then\n    compadd -- ${(f)\"$(agentx-hook %s ids 2>/dev/null)\"}\n",
		strings.Join(t.IDVerbs, "|"), CompleteCommand)
	if len(t.ArtifactVerbs) > 0 {
		fmt.Fprintf(b, "  elif (( CURRENT == 4 )) && [[ $words[2] == artifact ]] && [[ $words[3] == (%s) ]]; then\n    compadd -- ${(f)\"$(agentx-hook %s artifacts 2>/dev/null)\"}\n",
			strings.Join(t.ArtifactVerbs, "|"), CompleteCommand)
	}
	b.WriteString("  else\n    _files\n  fi\n}\n_agentx_hook \"$@\"\n")
}

func fish(b *strings.Builder, t Tree, keys []string) {
	b.WriteString("# fish completion for agentx-hook\ncomplete -c agentx-hook -f\n")
	for _, c := range t.Commands {
		fmt.Fprintf(b, "complete -c agentx-hook -n __fish_use_subcommand -a %s -d %s\n", c.Name, fishQuote(c.Summary))
	}
	for _, k := range keys {
		fmt.Fprintf(b, "complete -c agentx-hook -n '__fish_seen_subcommand_from %s' -a %q\n", k, strings.Join(t.Subs[k], " "))
	}
	for _, v := range valueKinds {
		fmt.Fprintf(b, "complete -c agentx-hook -l %s -x -a '(agentx-hook %s %s)'\n", strings.TrimPrefix(v.match, "--"), CompleteCommand, v.kind)
	}
	fmt.Fprintf(b, "complete -c agentx-hook -n '__fish_seen_subcommand_from clarify; and __fish_seen_subcommand_from %s' -a '(agentx-hook %s ids)'\n", strings.Join(t.IDVerbs, " "), CompleteCommand)
	if len(t.ArtifactVerbs) > 0 {
		fmt.Fprintf(b, "complete -c agentx-hook -n '__fish_seen_subcommand_from artifact; and __fish_seen_subcommand_from %s' -a '(agentx-hook %s artifacts)'\n", strings.Join(t.ArtifactVerbs, " "), CompleteCommand)
	}
	for _, k := range t.flagKeys() {
		cond := "__fish_seen_subcommand_from " + k
		if cmd, sub, ok := strings.Cut(k, " "); ok {
			cond = "__fish_seen_subcommand_from " + cmd + "; and __fish_seen_subcommand_from " + sub
		}
		for _, f := range t.Flags[k] {
			line := fmt.Sprintf("complete -c agentx-hook -n %s -l %s", fishQuote(cond), strings.TrimLeft(f.Name, "-"))
			if len(f.Values) > 0 {
				line += " -x -a " + fishQuote(strings.Join(f.Values, " "))
			} else if f.Value {
				line += " -r"
			}
			if f.Usage != "" {
				line += " -d " + fishQuote(f.Usage)
			}
			b.WriteString(line + "\n")
		}
	}
}

func powershell(b *strings.Builder, t Tree, cmds, keys []string) {
	b.WriteString("# PowerShell completion for agentx-hook\n")
	b.WriteString("Register-ArgumentCompleter -Native -CommandName agentx-hook -ScriptBlock {\n")
	b.WriteString("  param($wordToComplete, $commandAst, $cursorPosition)\n")
	b.WriteString("  $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })\n")
	b.WriteString("  if ($wordToComplete -ne '') { $words = $words[0..($words.Count - 2)] }\n")
	b.WriteString("  $prev = $words[-1]\n  $candidates = @()\n")
	fmt.Fprintf(b, "  if (@(%s) -contains $prev) { $candidates = @(agentx-hook %s agents 2>$null) }\n", psList(valueFlags("agents", " ")), CompleteCommand)
	fmt.Fprintf(b, "  elseif ($prev -eq '--issue') { $candidates = @(agentx-hook %s issues 2>$null) }\n", CompleteCommand)
	for _, e := range t.enums() {
		cmd, sub, _ := strings.Cut(e.key, " ")
		cond := fmt.Sprintf("$words[1] -eq '%s'", cmd)
		if sub != "" {
			cond += fmt.Sprintf(" -and $words.Count -ge 3 -and $words[2] -eq '%s'", sub)
		}
		fmt.Fprintf(b, "  elseif ($prev -eq '%s' -and %s) { $candidates = @(%s) }\n", e.flag, cond, psList(strings.Join(e.values, " ")))
	}
	b.WriteString("  elseif ($words.Count -ge 2 -and $wordToComplete -like '-*') {\n    $key = ($words[1..([Math]::Min(2, $words.Count - 1))] -join ' ')\n    switch ($key) {\n")
	for _, k := range t.flagKeys() {
		if strings.Contains(k, " ") {
			fmt.Fprintf(b, "      '%s' { $candidates = @(%s) }\n", k, psList(t.flagNames(k)))
		}
	}
	b.WriteString("    }\n    if ($candidates.Count -eq 0) {\n      switch ($words[1]) {\n")
	for _, k := range t.flagKeys() {
		if !strings.Contains(k, " ") {
			fmt.Fprintf(b, "        '%s' { $candidates = @(%s) }\n", k, psList(t.flagNames(k)))
		}
	}
	b.WriteString("      }\n    }\n  }\n")
	fmt.Fprintf(b, "  elseif ($words.Count -eq 1) { $candidates = @(%s) }\n", psList(strings.Join(append(cmds, "--root", "--help", "--version"), " ")))
	b.WriteString("  elseif ($words.Count -eq 2) {\n    switch ($words[1]) {\n")
	for _, k := range keys {
		fmt.Fprintf(b, "      '%s' { $candidates = @(%s) }\n", k, psList(strings.Join(t.Subs[k], " ")))
	}
	b.WriteString("    }\n  }\n")
	fmt.Fprintf(b, "  elseif ($words.Count -eq 3 -and $words[1] -eq 'clarify' -and @(%s) -contains $words[2]) { $candidates = @(agentx-hook %s ids 2>$null) }\n",
		psList(strings.Join(t.IDVerbs, " ")), CompleteCommand)
	if len(t.ArtifactVerbs) > 0 {
		fmt.Fprintf(b, "  elseif ($words.Count -eq 3 -and $words[1] -eq 'artifact' -and @(%s) -contains $words[2]) { $candidates = @(agentx-hook %s artifacts 2>$null) }\n",
			psList(strings.Join(t.ArtifactVerbs, " ")), CompleteCommand)
	}
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

// Matching is the candidates that start with prefix, sorted: what
// CompleteCommand prints, one a line.
func Matching(candidates []string, prefix string) []string {
	var out []string
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}
