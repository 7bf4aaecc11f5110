package capture

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/lazy"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// Tool calls and their results, read alike from the three hosts.

// editTool reports whether a tool writes files, by lower-case name across
// hosts. A switch, not a map literal: a map is built at process start.
func editTool(name string) bool {
	switch name {
	case "edit", "multiedit", "write", "notebookedit", // Claude Code
		"create", "str_replace_editor", "str_replace", "insert", // Copilot CLI
		"apply_patch", "write_file", "edit_file", "create_file", "replace":
		return true
	}
	return false
}

// shellTool reports whether a tool runs shell commands.
func shellTool(name string) bool {
	switch name {
	case "bash", "shell", "shell_command", "exec_command", "local_shell",
		"run_shell_command", "powershell", "run_in_terminal":
		return true
	}
	return false
}

type toolInput struct {
	FilePath     string          `json:"file_path"`
	Path         string          `json:"path"`
	FilePathC    string          `json:"filePath"`
	NotebookPath string          `json:"notebook_path"`
	TargetFile   string          `json:"target_file"`
	Command      json.RawMessage `json:"command"`
	Cmd          json.RawMessage `json:"cmd"`
	Input        string          `json:"input"`
}

func (x *extractor) toolCall(id, name string, input json.RawMessage, n int) {
	tool := strings.ToLower(name)
	c := &call{name: name, tool: tool, bytes: n}
	var in toolInput
	if len(input) > 0 {
		_ = json.Unmarshal(input, &in)
	}
	cmd := commandText(in.Command)
	if cmd == "" {
		cmd = commandText(in.Cmd)
	}
	switch {
	case editTool(tool):
		if tool == "str_replace_editor" && (cmd == "view" || cmd == "") {
			break // Copilot's editor tool also views files
		}
		c.edit = true
		if f := first(in.FilePath, in.Path, in.FilePathC, in.NotebookPath, in.TargetFile); f != "" {
			c.files = []string{f}
		}
		if tool == "apply_patch" && in.Input != "" {
			c.files = patchFiles(in.Input)
		}
	case shellTool(tool):
		c.command = cmd
		// Codex may run apply_patch through its shell tool.
		if strings.Contains(cmd, "*** Begin Patch") {
			c.edit, c.files = true, patchFiles(cmd)
		}
	}
	if id == "" {
		id = fmt.Sprintf("anon-%d", len(x.order))
	}
	x.calls[id] = c
	x.order = append(x.order, c)
}

// commandText reads a command given as a string or an argv array (Codex's
// ["bash","-lc","go test ./..."] reads as its last element).
func commandText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		if len(argv) >= 3 && (argv[1] == "-lc" || argv[1] == "-c") {
			return argv[len(argv)-1]
		}
		return strings.Join(argv, " ")
	}
	return ""
}

// Tool failures that are the agent's own fumbles or the person's choice,
// not facts about the project.
var trivialErrors = []string{
	"has not been read yet", "doesn't want to proceed", "[request interrupted",
	"user rejected", "user denied", "tool use was rejected", "file has been modified since read",
	"file has been unexpectedly modified", "no changes to make", "old_string and new_string are exactly the same",
}

func (x *extractor) toolResult(id string, failed bool, text string, n int) {
	c := x.calls[id]
	if c == nil {
		c = &call{}
	}
	c.bytes += n
	if !failed {
		return
	}
	c.failed = true
	text = sanitize.Private(text) // before lines are picked out of it
	lower := strings.ToLower(text)
	for _, t := range trivialErrors {
		if strings.Contains(lower, t) {
			return
		}
	}
	excerpt := errorExcerpt(text)
	var content string
	switch {
	case c.command != "":
		// Backticks as written, not %#q: that switches to "..." for a
		// command holding a backtick, and a stored observation's text
		// must not change between versions (dedupe compares it).
		content = "Command failed: `" + cleanLine(c.command, 200) + "`: " + excerpt
	case len(c.files) > 0:
		content = fmt.Sprintf("%s failed on %s: %s", c.name, x.rel(c.files[0]), excerpt)
	case c.name != "":
		content = fmt.Sprintf("%s failed: %s", c.name, excerpt)
	default:
		content = "Tool failed: " + excerpt
	}
	x.errs = append(x.errs, Candidate{Category: memory.Error, Content: content, Files: x.rels(c.files), SourceBytes: c.bytes})
}

var errorLineRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)error|fail|panic|exception|fatal|denied|not found|cannot|undefined|no such|refused|timed? ?out`)
}}

// cleanLine is line cut to n characters with its secrets redacted first,
// so a secret straddling the cut is never half-kept. Only the first 4n
// characters are read: what the cut keeps starts there.
func cleanLine(line string, n int) string {
	return shorten.Line(sanitize.Secrets(shorten.Runes(line, 4*n)), n)
}

// errorExcerpt keeps the telling lines of a failure's output: up to three
// that mention an error, else the first three.
func errorExcerpt(text string) string {
	var picked, firsts []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(strings.ToLower(l), "exit code") {
			continue
		}
		if len(firsts) < 3 {
			firsts = append(firsts, cleanLine(l, 200))
		}
		if len(picked) < 3 && errorLineRe.Get().MatchString(l) {
			picked = append(picked, cleanLine(l, 200))
		}
		if len(picked) == 3 {
			break
		}
	}
	if len(picked) == 0 {
		picked = firsts
	}
	if len(picked) == 0 {
		return "(no output)"
	}
	return strings.Join(picked, " | ")
}
