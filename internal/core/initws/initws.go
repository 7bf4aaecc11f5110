// Package initws owns creating a workspace: the .agentx/ directories, the
// default agentx.toml and workflows, .agentx/.gitignore for the mode, and
// agentx's section in AGENTS.md, each kept when it is there (a user's
// files are theirs), and a mode switch that rewrites one line. It also
// knows which state files a GitHub Mode branch should stop tracking.
package initws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Options is what an init does.
type Options struct {
	// Force overwrites the config and workflow files that exist.
	Force bool
	// NoAgentsMD leaves AGENTS.md alone.
	NoAgentsMD bool
	// Mode is local, github, or "" (the mode of an existing agentx.toml).
	Mode string
}

// Report is told each file as it is created, kept or updated, with its
// path.
type Report func(action, path string)

// Run creates the workspace at ws and returns its mode as it now is ("":
// an existing agentx.toml that names none, or one that does not load).
func Run(ws workspace.Workspace, o Options, report Report) (string, error) {
	mode := o.Mode
	files := config.DefaultFiles()
	if mode == "github" {
		files["agentx.toml"] = bytes.Replace(files["agentx.toml"], []byte(`mode = "local"`), []byte(`mode = "github"`), 1)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	if err := checkExisting(ws, o.Force); err != nil {
		return "", err
	}
	for _, dir := range []string{ws.AgentxDir(), ws.WorkflowsDir(), ws.ClarificationsDir(), ws.MemoryDir()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", dir, err)
		}
	}
	// A kept agentx.toml is reported once the mode is settled: a switch
	// reports it updated instead, never both.
	configKept := false
	defaults := func(action, path string) {
		if action == "kept" && path == ws.ConfigFile() {
			configKept = true
			return
		}
		report(action, path)
	}
	if err := writeDefaults(ws, files, names, o.Force, defaults); err != nil {
		return "", err
	}
	// The mode of the config as it is now (kept, or just written). An
	// explicit Mode switches a kept config: only its mode line changes,
	// every other setting and comment stays.
	if cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir()); err == nil {
		switch {
		case mode == "":
			mode = cfg.Config.Mode
		case cfg.Config.Mode == mode || mode == "local" && cfg.Config.Mode == "":
		default:
			if err := switchMode(ws.ConfigFile(), mode); err != nil {
				return "", err
			}
			report("updated", ws.ConfigFile())
			configKept = false
		}
	}
	if configKept {
		report("kept", ws.ConfigFile())
	}
	if err := writeGitignore(ws, mode, report); err != nil {
		return "", err
	}
	if !o.NoAgentsMD {
		if err := writeAgentsMD(ws.Root, report); err != nil {
			return "", err
		}
	}
	return mode, nil
}

// checkExisting refuses, before anything is written, a configuration
// that is there and does not load (unless force writes the defaults over
// it): kept unread, its mode was unknown, yet init went on to switch
// .gitignore and report the mode it was asked for.
func checkExisting(ws workspace.Workspace, force bool) error {
	if force {
		return nil
	}
	if _, err := os.Stat(ws.ConfigFile()); err != nil {
		return nil // none yet: init writes it
	}
	if _, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir()); err != nil {
		code, _ := errcode.Classify(err)
		return errcode.Wrap(code, err, "%v", err).
			WithHint("nothing was written: fix the file, or `agentx-hook init --force` writes the defaults over the configuration and workflows (their settings are lost)")
	}
	return nil
}

// writeDefaults writes the default config and workflows, keeping files
// that exist unless force.
func writeDefaults(ws workspace.Workspace, files map[string][]byte, names []string, force bool, report Report) error {
	for _, n := range names {
		path := filepath.Join(ws.AgentxDir(), filepath.FromSlash(n))
		if _, err := os.Stat(path); err == nil && !force {
			report("kept", path)
			continue
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := atomicfile.Write(path, files[n], atomicfile.Options{ClearDead: true}); err != nil {
			return err
		}
		report("created", path)
	}
	return nil
}

// writeAgentsMD puts agentx's instructions for agents into the
// repository's AGENTS.md, between markers, keeping the user's text.
func writeAgentsMD(root string, report Report) error {
	path := filepath.Join(root, hostsettings.AgentsFile)
	old, err := atomicfile.ReadRegular(path, hostsettings.MaxFileSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	next, err := hostsettings.AgentsSection(old)
	if err != nil {
		return errcode.Wrap(errcode.InvalidInput, err, "%s", path).WithHint("or run init --no-agents-md")
	}
	switch {
	case bytes.Equal(old, next):
		report("kept", path)
		return nil
	case old == nil:
		report("created", path)
	default:
		report("updated", path)
	}
	return atomicfile.Write(path, next, atomicfile.Options{ClearDead: true})
}

// modeLine is a top-level `mode = ...` line of agentx.toml. Compiled
// where it is used: a package-level regexp is compiled by every process at
// start, and only `init --mode` needs this one.
const modeLine = `(?m)^[ \t]*mode[ \t]*=[ \t]*("[^"\n]*"|'[^'\n]*')`

// switchMode rewrites the mode of the agentx.toml at path in place: the
// top-level mode line when there is one (before the first table), else a
// new first line. The rest of the file is the user's and stays as it is.
func switchMode(path, mode string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	top := data
	if loc := regexp.MustCompile(`(?m)^[ \t]*\[`).FindIndex(data); loc != nil {
		top = data[:loc[0]]
	}
	line := []byte(fmt.Sprintf("mode = %q", mode))
	var next []byte
	if loc := regexp.MustCompile(modeLine).FindIndex(top); loc != nil {
		next = append(append(append([]byte{}, data[:loc[0]]...), line...), data[loc[1]:]...)
	} else {
		next = append(append(line, '\n'), data...)
	}
	if _, err := config.ParseConfig(path, next); err != nil {
		return fmt.Errorf("switch %s to mode %q: %w", path, mode, err)
	}
	return atomicfile.Write(path, next, atomicfile.Options{ClearDead: true})
}

// Tracked is, in GitHub Mode, the state files the current branch still
// tracks (they belong on the state branch only) and the commands that
// stop tracking them, as init's and sync --init-from's documents end.
type Tracked struct {
	TrackedState []string `json:"trackedState,omitempty"`
	Untrack      []string `json:"untrack,omitempty"`
}

// FindTracked lists the state files the branch at root still tracks (git
// ls-files under .agentx/state and .agentx/memory), with the commands
// when there are any. Nothing outside a git work tree or without git.
func FindTracked(ctx context.Context, root string) Tracked {
	out, err := gitcmd.Exec{Dir: root}.Git(ctx, append([]string{"ls-files", "--"}, StateDirs()...)...)
	if err != nil {
		return Tracked{}
	}
	t := Tracked{TrackedState: gitcmd.Lines(out)}
	if len(t.TrackedState) > 0 {
		t.Untrack = UntrackCommands()
	}
	return t
}

// Lines name the tracked files (the first ten) and the commands that
// stop tracking them; beforeSync (init) first says to carry them over
// with sync --init-from HEAD. None when nothing is tracked.
func (t Tracked) Lines(beforeSync bool) []string {
	tracked := t.TrackedState
	if len(tracked) == 0 {
		return nil
	}
	const show = 10
	out := []string{fmt.Sprintf("\n%d state files are still tracked on this branch (they belong on the state branch only):", len(tracked))}
	for i, f := range tracked {
		if i == show {
			out = append(out, fmt.Sprintf("  ... and %d more (git ls-files -- %s)", len(tracked)-show, strings.Join(StateDirs(), " ")))
			break
		}
		out = append(out, "  "+f)
	}
	if beforeSync {
		out = append(out, "Carry them to the state branch first (nothing is lost):\n  agentx-hook sync --init-from HEAD")
	}
	out = append(out, fmt.Sprintf("Then stop tracking them (they stay on disk; .agentx/.gitignore now ignores %s):", strings.Join(workspace.OnStateBranch(), " ")))
	for _, c := range UntrackCommands() {
		out = append(out, "  "+c)
	}
	return out
}

// StateDirs are the workspace's state directories relative to its root.
func StateDirs() []string {
	return []string{filepath.ToSlash(filepath.Join(workspace.Dir, "state")), filepath.ToSlash(filepath.Join(workspace.Dir, "memory"))}
}

// UntrackCommands are the commands that stop a code branch tracking the
// state files, once `sync --init-from HEAD` carried them to the state
// branch; git keeps them on disk. The commit takes agentx.toml too: a
// Local Mode workspace's switch (its mode line) must reach every clone.
func UntrackCommands() []string {
	return []string{
		"git rm -r --cached --quiet -- " + strings.Join(StateDirs(), " "),
		"git add " + filepath.ToSlash(filepath.Join(workspace.Dir, ".gitignore")) + " " + filepath.ToSlash(filepath.Join(workspace.Dir, "agentx.toml")),
		`git commit -m "agentx: the state moves to the agentx/state branch"`,
	}
}

// writeGitignore creates .agentx/.gitignore, or adds GitHub Mode's block
// to the one a user has, and reports what it did.
func writeGitignore(ws workspace.Workspace, mode string, report Report) error {
	gi := ws.GitignoreFile()
	current, err := os.ReadFile(gi)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// What stays local (locks, spools, crash markers, derived indexes)
		// is workspace's knowledge: never committed.
		if err := atomicfile.Write(gi, workspace.GitignoreForMode(mode), atomicfile.Options{ClearDead: true}); err != nil {
			return err
		}
		report("created", gi)
	case err != nil:
		return fmt.Errorf("read %s: %w", gi, err)
	default:
		// A user's .gitignore is kept; GitHub Mode only adds its block.
		next := workspace.AddStateBranchBlock(current, mode)
		if bytes.Equal(next, current) {
			return nil
		}
		if err := atomicfile.Write(gi, next, atomicfile.Options{ClearDead: true}); err != nil {
			return err
		}
		report("updated", gi)
	}
	return nil
}
