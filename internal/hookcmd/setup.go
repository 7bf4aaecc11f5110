package hookcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/rogpeppe/go-internal/diff"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const setupUsage = `setup --claude|--codex|--copilot [--agent NAME] [--no-git-hooks] [--dry-run] [--json]

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
Each also registers the MCP server (` + "`agentx-hook mcp`" + `, docs/mcp.md) as
"agentx": .mcp.json (Claude Code), [mcp_servers.agentx] in
.codex/config.toml (Codex), .vscode/mcp.json (Copilot in VS Code).
Then the git hooks, as ` + "`hooks install`" + ` does (--no-git-hooks skips them).

Without --agent the commands name no agent: each session's agent comes from
$AGENTX_AGENT, else from the host's payload (Claude Code's agent_type for
` + "`claude --agent NAME`" + `), so one shared settings file serves every role.
--agent NAME writes the name into the commands (a file for one role only).
A file that is not valid JSON (or TOML) is reported and left untouched, and
then nothing is written. --dry-run prints the changes as a diff.`

// setupOptions is `setup`'s command line.
type setupOptions struct {
	Claude, Codex, Copilot bool
	Agent                  string
	NoGitHooks             bool
	DryRun                 bool
	jsonFlag
}

func parseSetup(a *App, args []string) (*setupOptions, error) {
	o := &setupOptions{}
	flags := newFlags(a, "setup", setupUsage)
	flags.BoolVar(&o.Claude, "claude", false, "wire Claude Code (.claude/settings.json)")
	flags.BoolVar(&o.Codex, "codex", false, "wire Codex (.codex/hooks.json and .codex/config.toml)")
	flags.BoolVar(&o.Copilot, "copilot", false, "wire GitHub Copilot (.github/hooks/agentx.json)")
	flags.StringVar(&o.Agent, "agent", "", "write this agent `name` into the commands (default: $AGENTX_AGENT or the host payload at run time)")
	flags.BoolVar(&o.NoGitHooks, "no-git-hooks", false, "leave the git hooks alone")
	flags.BoolVar(&o.DryRun, "dry-run", false, "print the changes as a diff and write nothing")
	o.register(flags)
	pos, err := parse(flags, args)
	if err != nil {
		return o, err
	}
	if len(pos) > 0 {
		return o, usagef("setup takes no arguments (got %q)", pos[0])
	}
	if !o.Claude && !o.Codex && !o.Copilot {
		return o, usagef("setup needs --claude, --codex or --copilot")
	}
	if o.Agent != "" {
		if err := validate.Agent("--agent", o.Agent); err != nil {
			return o, usagef("%v", err)
		}
	}
	return o, nil
}

// setupFile is one file setup created, updated or found as wanted.
type setupFile struct {
	Action string `json:"action"` // created, updated or unchanged
	Diff   string `json:"diff,omitempty"`
	Path   string `json:"path"` // relative to the root
	old    []byte
	new    []byte
}

type setupDoc struct {
	DryRun   bool            `json:"dryRun"`
	Files    []setupFile     `json:"files"`
	GitHooks []githooks.Step `json:"gitHooks"`
	Notes    []string        `json:"notes"`
	Root     string          `json:"root"`
	schemaVersion
}

func runSetup(ctx context.Context, a *App, o *setupOptions) error {
	root := a.Workspace().Root
	// Every file is planned before any is written: a corrupt one stops
	// setup with the others untouched too.
	plans, err := planSetup(root, o)
	if err != nil {
		return err
	}
	if !o.DryRun {
		if err := writeSetup(root, plans); err != nil {
			return err
		}
	}
	var notes []string
	var steps []githooks.Step
	if !o.NoGitHooks {
		if steps, err = a.setupGitHooks(ctx, o.DryRun); err != nil {
			notes = append(notes, fmt.Sprintf("git hooks not installed: %v", err))
		}
	}
	if _, err := os.Stat(a.Workspace().AgentxDir()); err != nil {
		notes = append(notes, "no .agentx/ here yet: the hooks do nothing until `agentx-hook init`")
	}
	if o.Codex {
		notes = append(notes, "Codex runs a project's hooks only once you trust them: review them with /hooks in Codex")
	}
	if o.Agent == "" {
		notes = append(notes, "the commands name no agent: set $AGENTX_AGENT for each session (or start Claude Code with --agent NAME)")
	}
	if o.JSON {
		return a.writeDoc(&setupDoc{DryRun: o.DryRun, Files: plans, GitHooks: nonNil(steps), Notes: nonNil(notes), Root: root})
	}
	a.printSetup(o.DryRun, plans, steps, notes)
	return nil
}

// planSetup computes every file's new content.
func planSetup(root string, o *setupOptions) ([]setupFile, error) {
	var plans []setupFile
	add := func(rel string, merge func([]byte, bool) ([]byte, error)) error {
		old, err := os.ReadFile(filepath.Join(root, rel))
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("setup: %w", err)
		}
		next, err := merge(old, exists)
		if err != nil {
			return errcode.Wrap(errcode.InvalidInput, err, "%s", filepath.ToSlash(rel)).
				WithHint("fix or move the file by hand; setup left it untouched and wrote nothing")
		}
		f := setupFile{Path: filepath.ToSlash(rel), old: old, new: next, Action: "unchanged"}
		switch {
		case !exists:
			f.Action = "created"
		case !bytes.Equal(old, next):
			f.Action = "updated"
		}
		if f.Action != "unchanged" {
			f.Diff = string(diff.Diff("a/"+f.Path, old, "b/"+f.Path, next))
		}
		plans = append(plans, f)
		return nil
	}
	for _, h := range hostsFor(o) {
		if err := add(h.file, func(old []byte, exists bool) ([]byte, error) {
			return mergeHostHooks(old, exists, h, o.Agent)
		}); err != nil {
			return nil, err
		}
		if h.name == "codex" {
			if err := add(filepath.Join(".codex", "config.toml"), func(old []byte, exists bool) ([]byte, error) {
				next, err := enableCodexHooks(old, exists)
				if err != nil {
					return nil, err
				}
				return hostsettings.CodexMCP(next, o.Agent)
			}); err != nil {
				return nil, err
			}
		}
		if file, merge := mcpRegistration(h.name); merge != nil {
			if err := add(file, func(old []byte, _ bool) ([]byte, error) { return merge(old, o.Agent) }); err != nil {
				return nil, err
			}
		}
	}
	return plans, nil
}

// writeSetup writes the planned files that change, each atomically.
func writeSetup(root string, plans []setupFile) error {
	for _, f := range plans {
		if f.Action == "unchanged" {
			continue
		}
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		if err := atomicfile.Write(path, f.new, atomicfile.Options{}); err != nil {
			return fmt.Errorf("setup: %s: %w", f.Path, err)
		}
	}
	return nil
}

func (a *App) printSetup(dryRun bool, plans []setupFile, steps []githooks.Step, notes []string) {
	for _, f := range plans {
		if dryRun && f.Diff != "" {
			fmt.Fprint(a.Stdout, f.Diff)
			continue
		}
		fmt.Fprintf(a.Stdout, "%-9s %s\n", f.Action, f.Path)
	}
	verb := "git hook"
	if dryRun {
		verb = "would git hook"
	}
	for _, st := range steps {
		if st.Changes() || st.Kind == githooks.Conflict || st.Kind == githooks.Managed {
			fmt.Fprintf(a.Stdout, "%s %s: %s\n", verb, st.Hook, st.Kind)
		}
	}
	for _, n := range notes {
		fmt.Fprintf(a.Stderr, "note: %s\n", n)
	}
}

// setupGitHooks is `hooks install` (planned only, with dryRun).
func (a *App) setupGitHooks(ctx context.Context, dryRun bool) ([]githooks.Step, error) {
	loc, snap, err := a.readHooks(ctx)
	if err != nil {
		return nil, err
	}
	steps := githooks.PlanInstall(snap, false)
	if dryRun {
		return steps, nil
	}
	if err := githooks.Apply(loc.Dir, steps); err != nil {
		return steps, fmt.Errorf("hooks install in %s: %w", loc.Dir, err)
	}
	return steps, nil
}

// hostHooks is what setup writes for one host.
type hostHooks struct {
	name   string
	file   string
	top    func(*jsonObject) // keys the file needs besides "hooks" (Copilot's version)
	events []hostEvent
}

// hostEvent is one entry setup owns under hooks[event]. Numbers in an
// entry are json.Number, as decoded files hold them, so equalJSON finds a
// re-run's entry equal to the one it wrote.
type hostEvent struct {
	event string
	entry func(agent string) *jsonObject
}

func hostsFor(o *setupOptions) []hostHooks {
	var hs []hostHooks
	if o.Claude {
		hs = append(hs, hostHooks{name: "claude", file: filepath.Join(".claude", "settings.json"), events: []hostEvent{
			// compact: memory comes back right after the session forgot it.
			{"SessionStart", group("startup|resume|clear|compact", "start", "--format claude", 10)},
			{"SessionEnd", group("", "finish", "", 0)},
			{"PreCompact", group("", "finish", "", 0)},
		}})
	}
	if o.Codex {
		hs = append(hs, hostHooks{name: "codex", file: filepath.Join(".codex", "hooks.json"), events: []hostEvent{
			{"SessionStart", group("startup|resume", "start", "--format codex", 10)},
			{"Stop", group("", "finish", "", 0)}, // Codex has no SessionEnd
			{"PreCompact", group("", "finish", "", 0)},
		}})
	}
	if o.Copilot {
		hs = append(hs, hostHooks{name: "copilot", file: filepath.Join(".github", "hooks", "agentx.json"),
			top: func(obj *jsonObject) {
				if _, ok := obj.get("version"); !ok {
					obj.set("version", json.Number("1"))
				}
			},
			events: []hostEvent{
				{"sessionEnd", copilotEntry(true)},
				{"agentStop", copilotEntry(false)},
			}})
	}
	return hs
}

// hookCommand is `agentx-hook hook EVENT [--agent NAME] [extra]`.
func hookCommand(event, agent, extra string) string {
	cmd := "agentx-hook hook " + event
	if agent != "" {
		cmd += " --agent " + agent
	}
	if extra != "" {
		cmd += " " + extra
	}
	return cmd
}

// group is a Claude Code / Codex matcher group holding one command hook.
func group(matcher, event, extra string, timeout int) func(string) *jsonObject {
	return func(agent string) *jsonObject {
		h := newJSONObject()
		h.set("type", "command")
		h.set("command", hookCommand(event, agent, extra))
		if timeout > 0 {
			h.set("timeout", json.Number(strconv.Itoa(timeout)))
		}
		g := newJSONObject()
		if matcher != "" {
			g.set("matcher", matcher)
		}
		g.set("hooks", []any{h})
		return g
	}
}

// copilotEntry is a Copilot hook: one entry with a bash and a powershell
// command. At the session's end it also writes the instructions file
// Copilot reads at the next start (Copilot ignores what a start hook
// prints). That is one agent's recall: the agent named, else the
// session's $AGENTX_AGENT when it is set (a shared file serves every
// role; a session without one has no recall to write, and no error).
func copilotEntry(sessionEnd bool) func(string) *jsonObject {
	return func(agent string) *jsonObject {
		bash, ps := hookCommand("finish", agent, ""), hookCommand("finish", agent, "")
		switch {
		case sessionEnd && agent != "":
			recall := "agentx-hook memory recall --agent " + agent + " --write-instructions"
			bash += " && " + recall
			ps += "; " + recall
		case sessionEnd:
			bash += ` && { [ -z "$AGENTX_AGENT" ] || agentx-hook memory recall --write-instructions; }`
			ps += `; if ($env:AGENTX_AGENT) { agentx-hook memory recall --write-instructions }`
		}
		e := newJSONObject()
		e.set("type", "command")
		e.set("bash", bash)
		e.set("powershell", ps)
		e.set("timeoutSec", json.Number("30"))
		return e
	}
}

// isOurs reports whether a hook entry (a matcher group, or a Copilot
// entry) runs agentx-hook: setup updates that entry in place instead of
// adding another.
func isOurs(v any) bool {
	obj, ok := v.(*jsonObject)
	if !ok {
		return false
	}
	for _, key := range []string{"command", "bash", "powershell"} {
		if s, ok := obj.vals[key].(string); ok && strings.Contains(s, "agentx-hook hook ") {
			return true
		}
	}
	if hooks, ok := obj.vals["hooks"].([]any); ok {
		for _, h := range hooks {
			if isOurs(h) {
				return true
			}
		}
	}
	return false
}

// mergeHostHooks puts h's entries into a host's settings file, keeping
// every other key and hook. The result is old itself when nothing needs to
// change, so a re-run leaves the file byte for byte as it was.
func mergeHostHooks(old []byte, exists bool, h hostHooks, agent string) ([]byte, error) {
	root := newJSONObject()
	if exists && len(bytes.TrimSpace(old)) > 0 {
		v, err := decodeOrdered(old)
		if err != nil {
			return nil, fmt.Errorf("not valid JSON: %w", err)
		}
		obj, ok := v.(*jsonObject)
		if !ok {
			return nil, errors.New("not a JSON object")
		}
		root = obj
	}
	changed := !exists
	if h.top != nil {
		n := len(root.keys)
		h.top(root)
		changed = changed || len(root.keys) != n
	}
	hv, ok := root.get("hooks")
	if !ok {
		hv = newJSONObject()
		root.set("hooks", hv)
		changed = true
	}
	hooks, ok := hv.(*jsonObject)
	if !ok {
		return nil, errors.New(`"hooks" is not a JSON object`)
	}
	for _, ev := range h.events {
		want := ev.entry(agent)
		var list []any
		if v, ok := hooks.get(ev.event); ok {
			if list, ok = v.([]any); !ok {
				return nil, fmt.Errorf(`"hooks.%s" is not a JSON array`, ev.event)
			}
		}
		i := 0
		for i < len(list) && !isOurs(list[i]) {
			i++
		}
		switch {
		case i == len(list):
			list = append(list, want)
		case equalJSON(list[i], want):
			continue
		default:
			list[i] = want
		}
		hooks.set(ev.event, list)
		changed = true
	}
	if !changed {
		return old, nil
	}
	return encodeOrdered(root), nil
}

// codexFeatures is the table header Codex reads its feature flags from.
var codexFeatures = regexp.MustCompile(`(?m)^[ \t]*\[features\][ \t]*(#.*)?$`)

// enableCodexHooks sets [features] codex_hooks = true in a Codex
// config.toml, touching no other line: Codex runs no hook from hooks.json
// without it (https://developers.openai.com/codex/hooks).
func enableCodexHooks(old []byte, exists bool) ([]byte, error) {
	var cfg struct {
		Features map[string]any `toml:"features"`
	}
	if _, err := toml.Decode(string(old), &cfg); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	v, set := cfg.Features["codex_hooks"]
	if on, _ := v.(bool); on {
		return old, nil
	}
	if set {
		line := regexp.MustCompile(`(?m)^([ \t]*)codex_hooks[ \t]*=[^\n]*$`)
		if !line.Match(old) {
			return nil, errors.New("codex_hooks is set in a form setup does not rewrite; set [features] codex_hooks = true by hand")
		}
		return line.ReplaceAll(old, []byte("${1}codex_hooks = true")), nil
	}
	if loc := codexFeatures.FindIndex(old); loc != nil {
		out := append([]byte(nil), old[:loc[1]]...)
		out = append(out, "\ncodex_hooks = true"...)
		return append(out, old[loc[1]:]...), nil
	}
	if cfg.Features != nil {
		return nil, errors.New("[features] is written in a form setup does not rewrite; set codex_hooks = true in it by hand")
	}
	out := append([]byte(nil), old...)
	if len(out) > 0 {
		if out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, '\n')
	}
	return append(out, "[features]\ncodex_hooks = true\n"...), nil
}
