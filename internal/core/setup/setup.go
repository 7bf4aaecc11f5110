// Package setup owns what `agentx-hook setup` changes to wire agentx into
// an agent host and git: the hosts' settings files (as hostsettings edits
// them) planned as a list of file changes before any is written, the git
// hooks installed or removed with them, and the advice left after. A
// check, a dry run, a removal and a real run all go through the same plan.
package setup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Options is what a setup run does.
type Options struct {
	Claude, Codex, Copilot bool
	// Agent is written into the hooks' commands ("": none, the session's
	// agent is found at run time).
	Agent      string
	NoGitHooks bool
	DryRun     bool
	Check      bool
	Remove     bool
}

// Hosts are the hosts the options name, in setup's order.
func (o Options) Hosts() []hostsettings.Host {
	var hs []hostsettings.Host
	for _, on := range []struct {
		set  bool
		name string
	}{{o.Claude, hostsettings.Claude}, {o.Codex, hostsettings.Codex}, {o.Copilot, hostsettings.Copilot}} {
		if h, ok := hostsettings.For(on.name); ok && on.set {
			hs = append(hs, h)
		}
	}
	return hs
}

// Validate says what is wrong with o as a command line: no host, or an
// agent that --remove would not use or that is not a valid name.
func (o Options) Validate() error {
	if !o.Claude && !o.Codex && !o.Copilot {
		return errors.New("setup needs --claude, --codex or --copilot")
	}
	if o.Agent != "" && o.Remove {
		return errors.New("setup --remove takes no --agent: it removes agentx's entries whatever agent they name")
	}
	if o.Agent != "" {
		return validate.Agent("--agent", o.Agent)
	}
	return nil
}

// Writes reports whether the run may change files.
func (o Options) Writes() bool { return !o.DryRun && !o.Check }

// Command is the setup command line for o's hosts without --check and
// the program name: what makes the changes --check found.
func (o Options) Command() string {
	cmd := "setup"
	for _, h := range o.Hosts() {
		cmd += " --" + h.Name
	}
	if o.Agent != "" {
		cmd += " --agent " + o.Agent
	}
	if o.Remove {
		cmd += " --remove"
	}
	if o.NoGitHooks {
		cmd += " --no-git-hooks"
	}
	return cmd
}

// File is one file setup created, updated, removed or found as wanted.
type File struct {
	Action string `json:"action"` // created, updated, removed or unchanged
	Diff   string `json:"diff,omitempty"`
	Path   string `json:"path"` // relative to the root
	new    []byte
}

// Result is what a run changed (or, planned only, would change).
type Result struct {
	Files    []File
	GitHooks []githooks.Step
	Notes    []string
}

// Pending counts the files and git hooks a run changes (or would).
func (r *Result) Pending() int {
	n := 0
	for _, f := range r.Files {
		if f.Action != string(hostsettings.Unchanged) {
			n++
		}
	}
	for _, st := range r.GitHooks {
		if st.Changes() {
			n++
		}
	}
	return n
}

// Run plans every file, writes the plan unless o only looks, then
// installs or removes the git hooks. cfg loads the workspace's
// configuration, only when the notes need its default agent (loading it
// may warn).
func Run(ctx context.Context, ws workspace.Workspace, cfg func() (*config.Set, error), o Options) (*Result, error) {
	root := ws.Root
	// Every file is planned before any is written: a corrupt one stops
	// setup with the others untouched too.
	plans, err := Plan(root, o)
	if err != nil {
		return nil, err
	}
	if o.Writes() {
		if err := Write(root, plans); err != nil {
			return nil, err
		}
	}
	r := &Result{Files: plans}
	switch {
	case o.NoGitHooks:
	case o.Remove:
		r.GitHooks, r.Notes = removeGitHooks(ctx, root, o)
	default:
		if _, r.GitHooks, err = githooks.Change(ctx, root, true, false, !o.Writes()); err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("git hooks not installed: %v", err))
		}
	}
	if !o.Remove {
		r.Notes = append(r.Notes, notes(ws, cfg, o)...)
	}
	return r, nil
}

// notes is the advice setup leaves after wiring.
func notes(ws workspace.Workspace, cfg func() (*config.Set, error), o Options) []string {
	var notes []string
	if _, err := os.Stat(ws.AgentxDir()); err != nil {
		notes = append(notes, "no .agentx/ here yet: the hooks do nothing until `agentx-hook init`")
	}
	if o.Codex {
		notes = append(notes, "Codex (0.169) runs a project's hooks only in a trusted project and once each hook is reviewed with /hooks in Codex (again after setup changes one); `agentx-hook doctor` says which are not and prints the fix")
	}
	if o.Copilot {
		notes = append(notes, "Copilot CLI (1.0.102) loads a repository's hooks in `copilot -p` only in a trusted folder (start `copilot` here once and trust it); `agentx-hook doctor` checks it")
	}
	set, cerr := cfg()
	if cerr != nil {
		if _, err := os.Stat(ws.ConfigFile()); err == nil {
			return append(notes, ".agentx/agentx.toml does not load, so every hook warns and does nothing until it is fixed (`agentx-hook doctor` says why)")
		}
	}
	if o.Agent == "" {
		agent := config.FallbackAgent
		if cerr == nil {
			agent = set.Config.Hooks.DefaultAgentOr()
		}
		how := "set $AGENTX_AGENT for a session to run it as another role"
		if o.Claude {
			// Only Claude Code names the agent in its payload.
			how += " (in Claude Code, `claude --agent NAME` does it too)"
		}
		notes = append(notes, fmt.Sprintf("the commands name no agent: each session runs as [hooks] default_agent (%s); %s", agent, how))
	}
	return notes
}

// ReadHostFiles reads the files hosts' wiring touches under root, each up
// to one byte past hostsettings.MaxFileSize (which refuses it).
func ReadHostFiles(root string, hosts []hostsettings.Host) (hostsettings.Files, error) {
	files := hostsettings.Files{}
	for _, h := range hosts {
		for _, rel := range h.Paths() {
			data, err := readHostFile(filepath.Join(root, filepath.FromSlash(rel)))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("setup: %w", err)
			}
			files[rel] = data
		}
	}
	return files, nil
}

func readHostFile(path string) ([]byte, error) {
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	return io.ReadAll(io.LimitReader(f, hostsettings.MaxFileSize+1))
}

// Plan computes every file's new content.
func Plan(root string, o Options) ([]File, error) {
	hosts := o.Hosts()
	files, err := ReadHostFiles(root, hosts)
	if err != nil {
		return nil, err
	}
	var plans []File
	for _, h := range hosts {
		var edits []hostsettings.Edit
		if o.Remove {
			edits, err = hostsettings.Unwire(h, files)
		} else {
			edits, err = hostsettings.Wire(h, files, o.Agent)
		}
		var fe *hostsettings.FileError
		if errors.As(err, &fe) {
			return nil, errcode.Wrap(errcode.InvalidInput, fe.Err, "%s", fe.Path).
				WithHint("fix or move the file by hand; it was left untouched and nothing was written")
		}
		if err != nil {
			return nil, err
		}
		for _, e := range edits {
			f := File{Path: e.Path, new: e.New, Action: string(e.Action)}
			if e.Changes() {
				f.Diff = string(diff.Diff("a/"+f.Path, e.Old, "b/"+f.Path, e.New))
			}
			plans = append(plans, f)
		}
	}
	return plans, nil
}

// Write writes (or removes) the planned files that change, each
// atomically.
func Write(root string, plans []File) error {
	for _, f := range plans {
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		switch hostsettings.Action(f.Action) {
		case hostsettings.Unchanged:
			continue
		case hostsettings.Removed:
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("setup: %w", err)
			}
			removeEmptyDirs(root, filepath.Dir(path))
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		if err := atomicfile.Write(path, f.new, atomicfile.Options{ClearDead: true}); err != nil {
			return fmt.Errorf("setup: %s: %w", f.Path, err)
		}
	}
	return nil
}

// removeEmptyDirs removes dir and its parents below root while they are
// empty (.codex/, .github/hooks/ that setup made), never root itself.
func removeEmptyDirs(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil { // not empty, or not ours to remove
			return
		}
		dir = filepath.Dir(dir)
	}
}

// removeGitHooks is the git hooks' part of --remove: `hooks uninstall`
// (planned only, with --check or --dry-run), unless a host file setup did
// not touch still runs agentx, whose sessions the git hooks serve too.
func removeGitHooks(ctx context.Context, root string, o Options) ([]githooks.Step, []string) {
	others := Options{Claude: !o.Claude, Codex: !o.Codex, Copilot: !o.Copilot}
	files, err := ReadHostFiles(root, others.Hosts())
	if err != nil {
		return nil, []string{fmt.Sprintf("git hooks kept: %v", err)}
	}
	for _, h := range others.Hosts() {
		if w, err := hostsettings.Inspect(h, files); err == nil && len(w.Wired) > 0 {
			return nil, []string{fmt.Sprintf("git hooks kept: %s still runs agentx (`agentx-hook setup --%s --remove` takes it out)", h.File, h.Name)}
		}
	}
	_, steps, err := githooks.Change(ctx, root, false, false, !o.Writes())
	if err != nil {
		return steps, []string{fmt.Sprintf("git hooks not removed: %v", err)}
	}
	return steps, nil
}
