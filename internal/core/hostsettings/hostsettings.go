// Package hostsettings edits the settings files of the agent hosts that
// run agentx's hooks: Claude Code's .claude/settings.json (and the
// `@AGENTS.md` import in its CLAUDE.md), Codex's
// .codex/hooks.json and the codex_hooks feature in .codex/config.toml,
// and Copilot's .github/hooks/agentx.json.
//
// Each function is pure: it takes the files' current bytes and returns
// what each becomes, with what changed. Reading, writing and printing are
// the caller's. A host's settings file is someone else's file: only the
// entries agentx owns (those running `agentx-hook hook ...`) are added,
// rewritten or removed; every other key keeps its place and its value
// (numbers as written; a JSON file that changes is re-indented by two
// spaces), a file that needs no change comes back byte for byte, and a
// file that is not unambiguous JSON (or TOML) is refused, never rewritten.
package hostsettings

import (
	"bytes"
	"errors"
	"fmt"
)

// The hosts agentx wires.
const (
	Claude  = "claude"
	Codex   = "codex"
	Copilot = "copilot"
)

// Names lists the hosts in the order setup handles them.
func Names() []string { return []string{Claude, Codex, Copilot} }

// CodexConfig is Codex's project configuration, where its hooks feature
// flag lives (relative to the root, slash-separated).
const CodexConfig = ".codex/config.toml"

// MaxFileSize bounds a settings file that is edited: real ones are a few
// kilobytes, and a larger file is refused rather than parsed.
const MaxFileSize = 1 << 20

// Host is what setup writes for one host.
type Host struct {
	// Name is Claude, Codex or Copilot.
	Name string
	// File is the hooks file, relative to the root and slash-separated.
	File string
	// top sets the keys the file needs besides "hooks" (Copilot's version).
	top func(*jsonObject)
	// events are the entries agentx owns under hooks[event].
	events []hostEvent
}

// hostEvent is one entry setup owns under hooks[event]. Numbers in an
// entry are json.Number, as decoded files hold them, so equalJSON finds a
// re-run's entry equal to the one it wrote.
type hostEvent struct {
	event string
	entry func(agent string) *jsonObject
}

// For returns the host named name (Claude, Codex or Copilot).
func For(name string) (Host, bool) {
	switch name {
	case Claude:
		return claudeHost(), true
	case Codex:
		return codexHost(), true
	case Copilot:
		return copilotHost(), true
	}
	return Host{}, false
}

// Paths are the files the host's wiring touches, hooks file first.
func (h Host) Paths() []string {
	if h.Name == Codex {
		return []string{h.File, CodexConfig}
	}
	paths := append([]string{h.File}, h.mcpFiles()...)
	if h.Name == Claude {
		paths = append(paths, ClaudeFile)
	}
	return paths
}

// Events are the hook events agentx wires for the host, in order.
func (h Host) Events() []string {
	out := make([]string, 0, len(h.events))
	for _, ev := range h.events {
		out = append(out, ev.event)
	}
	return out
}

// Files are the current contents of a root's files, by slash path relative
// to the root; a file that does not exist has no key.
type Files map[string][]byte

// Action is what an edit does to one file.
type Action string

// The actions of an Edit.
const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
	Removed   Action = "removed"
)

// Edit is what one file becomes. New is nil for Removed.
type Edit struct {
	Path   string
	Action Action
	Old    []byte
	New    []byte
}

// Changes reports whether the edit writes or removes the file.
func (e Edit) Changes() bool { return e.Action != Unchanged }

// FileError is a file that cannot be edited safely: not valid JSON or
// TOML, ambiguous, too large, or shaped in a way setup does not rewrite.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// edit is the Edit of path from old (exists) to next (nil: remove).
func edit(path string, old []byte, exists bool, next []byte, remove bool) Edit {
	e := Edit{Path: path, Old: old, New: next, Action: Unchanged}
	switch {
	case remove && exists:
		e.Action, e.New = Removed, nil
	case remove, !exists && next == nil:
		e.New = nil
	case !exists:
		e.Action = Created
	case !bytes.Equal(old, next):
		e.Action = Updated
	}
	return e
}

// checkSize refuses a file past MaxFileSize.
func checkSize(data []byte) error {
	if len(data) > MaxFileSize {
		return fmt.Errorf("larger than %d bytes; setup edits only files of a settings file's size", MaxFileSize)
	}
	return nil
}

// Wire returns the edits that put h's hooks into files (agent "": the
// commands name no agent). A file already wired is Unchanged, byte for
// byte. An error is a *FileError naming the file; then nothing should be
// written.
func Wire(h Host, files Files, agent string) ([]Edit, error) {
	old, exists := files[h.File]
	next, err := mergeHostHooks(old, exists, h, agent)
	if err != nil {
		return nil, &FileError{Path: h.File, Err: err}
	}
	edits := []Edit{edit(h.File, old, exists, next, false)}
	if h.Name == Codex {
		cold, cexists := files[CodexConfig]
		cnext, err := enableCodexHooks(cold, cexists)
		if err != nil {
			return nil, &FileError{Path: CodexConfig, Err: err}
		}
		if cnext, err = h.wireMCP(CodexConfig, cnext, agent); err != nil {
			return nil, &FileError{Path: CodexConfig, Err: err}
		}
		return append(edits, edit(CodexConfig, cold, cexists, cnext, false)), nil
	}
	for _, mf := range h.mcpFiles() {
		mold, mexists := files[mf]
		mnext, err := h.wireMCP(mf, mold, agent)
		if err != nil {
			return nil, &FileError{Path: mf, Err: err}
		}
		edits = append(edits, edit(mf, mold, mexists, mnext, false))
	}
	if h.Name == Claude {
		cold, cexists := files[ClaudeFile]
		cnext, err := wireClaudeMD(cold, cexists)
		if err != nil {
			return nil, &FileError{Path: ClaudeFile, Err: err}
		}
		edits = append(edits, edit(ClaudeFile, cold, cexists, cnext, false))
	}
	return edits, nil
}

// Unwire returns the edits that take h's hooks out of files, keeping every
// other key and hook. A file left holding nothing but what setup writes
// (an empty "hooks", Copilot's version) is Removed. Codex's feature flag
// is taken out only when hooks.json is then gone: other hooks there need
// it.
func Unwire(h Host, files Files) ([]Edit, error) {
	old, exists := files[h.File]
	next, empty, err := removeHostHooks(old, exists, h)
	if err != nil {
		return nil, &FileError{Path: h.File, Err: err}
	}
	edits := []Edit{edit(h.File, old, exists, next, empty)}
	if h.Name == Codex {
		cold, cexists := files[CodexConfig]
		cnext, cempty := cold, false
		if cexists {
			if cnext, cempty, err = h.unwireMCP(CodexConfig, cold); err != nil {
				return nil, &FileError{Path: CodexConfig, Err: err}
			}
		}
		if empty && cexists && !cempty {
			if cnext, cempty, err = disableCodexHooks(cnext); err != nil {
				return nil, &FileError{Path: CodexConfig, Err: err}
			}
		}
		return append(edits, edit(CodexConfig, cold, cexists, cnext, cempty)), nil
	}
	for _, mf := range h.mcpFiles() {
		mold, mexists := files[mf]
		mnext, mempty := mold, false
		if mexists {
			if mnext, mempty, err = h.unwireMCP(mf, mold); err != nil {
				return nil, &FileError{Path: mf, Err: err}
			}
		}
		edits = append(edits, edit(mf, mold, mexists, mnext, mempty))
	}
	if h.Name == Claude {
		if cold, cexists := files[ClaudeFile]; cexists {
			cnext, cempty, err := unwireClaudeMD(cold)
			if err != nil {
				return nil, &FileError{Path: ClaudeFile, Err: err}
			}
			edits = append(edits, edit(ClaudeFile, cold, cexists, cnext, cempty))
		}
	}
	return edits, nil
}

// Wiring is what a host's hooks file holds of agentx's hooks.
type Wiring struct {
	// Exists is set when the hooks file exists.
	Exists bool
	// Wired are the events holding an agentx entry; Missing the others.
	Wired, Missing []string
	// Agents are the agent names the entries write (--agent NAME), if any.
	Agents []string
}

// Inspect reads h's hooks file as Wire would, without changing it. For
// Codex, events wired in config.toml's inline [[hooks.EVENT]] tables
// count too (Exists is then set even without hooks.json).
func Inspect(h Host, files Files) (Wiring, error) {
	data, exists := files[h.File]
	w := Wiring{Exists: exists}
	hooks, err := hooksObject(data, exists)
	if err != nil {
		return w, &FileError{Path: h.File, Err: err}
	}
	inline := map[string]bool{}
	if cfg, ok := files[CodexConfig]; ok && h.Name == Codex {
		events, err := codexInlineEvents(cfg)
		if err != nil {
			return w, &FileError{Path: CodexConfig, Err: err}
		}
		for _, e := range events {
			inline[e] = true
			w.Exists = true
		}
	}
	seen := map[string]bool{}
	for _, ev := range h.events {
		var list []any
		if hooks != nil {
			list, _ = hooks.vals[ev.event].([]any)
		}
		found := false
		for _, e := range list {
			if isOurs(e) {
				found = true
				for _, a := range agentsOf(e) {
					if !seen[a] {
						seen[a] = true
						w.Agents = append(w.Agents, a)
					}
				}
			}
		}
		if found || inline[ev.event] {
			w.Wired = append(w.Wired, ev.event)
		} else {
			w.Missing = append(w.Missing, ev.event)
		}
	}
	return w, nil
}

// errNotObject is a settings file whose top level is not an object.
var errNotObject = errors.New("not a JSON object")
