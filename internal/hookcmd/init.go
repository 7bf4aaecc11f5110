package hookcmd

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

// initOptions is `init`'s command line.
type initOptions struct {
	Force bool
	// NoAgentsMD leaves AGENTS.md alone (init otherwise writes agentx's
	// section into it, between markers).
	NoAgentsMD bool
	Mode       string // local, github, or "" (the mode of an existing agentx.toml)
	jsonFlag
}

const initUsage = "init [--mode local|github] [--force] [--no-agents-md] [--json]\n\nCreates .agentx/ with a default agentx.toml and the feature, story and bug\nworkflows, and agentx's section in AGENTS.md (between markers; the rest of\nthe file is kept). Existing files are kept unless --force is given; --mode switches\nthe mode of an existing agentx.toml, keeping its other settings.\n\nIn GitHub Mode (--mode github, or mode = \"github\" in an existing agentx.toml)\n.agentx/.gitignore also keeps state/, memory/ and digests/ off code branches:\nthat state lives on the state branch (agentx-hook sync). Commit agentx.toml,\nworkflows/, .gitignore and AGENTS.md. State files the branch still tracks are named,\nwith the commands that carry them to the state branch (sync --init-from\nHEAD) and stop tracking them (git rm -r --cached)."

func parseInit(a *App, args []string) (*initOptions, error) {
	o := &initOptions{}
	flags := newFlags(a, "init", initUsage)
	flags.BoolVar(&o.Force, "force", false, "overwrite existing config and workflow files")
	flags.BoolVar(&o.NoAgentsMD, "no-agents-md", false, "do not write agentx's section into AGENTS.md")
	flags.StringVar(&o.Mode, "mode", "", "`local` or github (default: the mode in an existing agentx.toml, else local)")
	o.register(flags)
	if _, err := parse(flags, args); err != nil {
		return o, err
	}
	switch o.Mode {
	case "", "local", "github":
	default:
		return o, usagef("init: --mode must be local or github, not %q", o.Mode)
	}
	return o, nil
}

// initFile is one file init created, kept or updated.
type initFile struct {
	Path   string `json:"path"`
	Action string `json:"action"` // created, kept or updated
}

type initDoc struct {
	Files []initFile `json:"files"`
	Mode  string     `json:"mode,omitempty"`
	Root  string     `json:"root"`
	schemaVersion
	// TrackedState lists, in GitHub Mode, the state files the current
	// branch still tracks; Untrack the commands that stop tracking them
	// (after `agentx-hook sync --init-from HEAD`).
	TrackedState []string `json:"trackedState,omitempty"`
	Untrack      []string `json:"untrack,omitempty"`
}

func runInit(ctx context.Context, a *App, o *initOptions) error {
	mode := o.Mode
	ws := a.Workspace()
	files := config.DefaultFiles()
	if mode == "github" {
		files["agentx.toml"] = bytes.Replace(files["agentx.toml"], []byte(`mode = "local"`), []byte(`mode = "github"`), 1)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, dir := range []string{ws.AgentxDir(), ws.WorkflowsDir(), ws.ClarificationsDir(), ws.MemoryDir()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	// report prints each file as it is written, or collects it for --json.
	results := []initFile{}
	report := func(action, path string) {
		if o.JSON {
			results = append(results, initFile{Path: filepath.ToSlash(rel(ws.Root, path)), Action: action})
			return
		}
		fmt.Fprintf(a.Stdout, "%-8s %s\n", action, rel(ws.Root, path))
	}
	if err := writeDefaults(ws, files, names, o.Force, report); err != nil {
		return err
	}
	// The mode of the config as it is now (kept, or just written). An
	// explicit --mode switches a kept config: only its mode line changes,
	// every other setting and comment stays.
	if cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir()); err == nil {
		switch {
		case mode == "":
			mode = cfg.Config.Mode
		case cfg.Config.Mode == mode || mode == "local" && cfg.Config.Mode == "":
		default:
			if err := switchMode(ws.ConfigFile(), mode); err != nil {
				return err
			}
			report("updated", ws.ConfigFile())
		}
	}
	if err := writeGitignore(ws, mode, report); err != nil {
		return err
	}
	if !o.NoAgentsMD {
		if err := writeAgentsMD(ws.Root, report); err != nil {
			return err
		}
	}
	var tracked []string
	if mode == "github" {
		tracked = trackedStateFiles(ctx, ws.Root)
	}
	if o.JSON {
		doc := &initDoc{Root: ws.Root, Files: results, Mode: mode, TrackedState: tracked}
		if len(tracked) > 0 {
			doc.Untrack = untrackCommands()
		}
		return a.writeDoc(doc)
	}
	fmt.Fprintf(a.Stdout, "agentx initialised in %s (mode %s)\n", ws.Root, orLocal(mode))
	printTrackedState(a, tracked, true)
	return nil
}

// writeDefaults writes the default config and workflows, keeping files
// that exist unless force.
func writeDefaults(ws workspace.Workspace, files map[string][]byte, names []string, force bool, report func(action, path string)) error {
	for _, n := range names {
		path := filepath.Join(ws.AgentxDir(), filepath.FromSlash(n))
		if _, err := os.Stat(path); err == nil && !force {
			report("kept", path)
			continue
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := atomicfile.Write(path, files[n], atomicfile.Options{}); err != nil {
			return err
		}
		report("created", path)
	}
	return nil
}

// writeAgentsMD puts agentx's instructions for agents into the
// repository's AGENTS.md, between markers, keeping the user's text.
func writeAgentsMD(root string, report func(action, path string)) error {
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
	return atomicfile.Write(path, next, atomicfile.Options{})
}

func orLocal(mode string) string {
	if mode == "" {
		return "local"
	}
	return mode
}

// modeLine is a top-level `mode = ...` line of agentx.toml.
var modeLine = regexp.MustCompile(`(?m)^[ \t]*mode[ \t]*=[ \t]*("[^"\n]*"|'[^'\n]*')`)

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
	if loc := modeLine.FindIndex(top); loc != nil {
		next = append(append(append([]byte{}, data[:loc[0]]...), line...), data[loc[1]:]...)
	} else {
		next = append(append(line, '\n'), data...)
	}
	if _, err := config.ParseConfig(path, next); err != nil {
		return fmt.Errorf("switch %s to mode %q: %w", path, mode, err)
	}
	return atomicfile.Write(path, next, atomicfile.Options{})
}

// trackedStateFiles lists the state files the current branch still
// tracks (git ls-files under .agentx/state and .agentx/memory): in GitHub
// Mode they belong on the state branch only. Nothing outside a git work
// tree or without git.
func trackedStateFiles(ctx context.Context, root string) []string {
	out, err := gitcmd.Exec{Dir: root}.Git(ctx, append([]string{"ls-files", "--"}, stateDirs()...)...)
	if err != nil {
		return nil
	}
	return gitcmd.Lines(out)
}

// stateDirs are the workspace's state directories relative to its root.
func stateDirs() []string {
	return []string{filepath.ToSlash(filepath.Join(workspace.Dir, "state")), filepath.ToSlash(filepath.Join(workspace.Dir, "memory"))}
}

// untrackCommands are the commands that stop a code branch tracking the
// state files, once `sync --init-from HEAD` carried them to the state
// branch; git keeps them on disk.
func untrackCommands() []string {
	return []string{
		"git rm -r --cached --quiet -- " + strings.Join(stateDirs(), " "),
		"git add " + filepath.ToSlash(filepath.Join(workspace.Dir, ".gitignore")),
		`git commit -m "agentx: the state moves to the agentx/state branch"`,
	}
}

// printTrackedState names the state files a GitHub Mode workspace's
// branch still tracks and the commands that stop tracking them (before
// sync: first carry them over with sync --init-from HEAD).
func printTrackedState(a *App, tracked []string, beforeSync bool) {
	if len(tracked) == 0 {
		return
	}
	const show = 10
	fmt.Fprintf(a.Stdout, "\n%d state files are still tracked on this branch (they belong on the state branch only):\n", len(tracked))
	for i, f := range tracked {
		if i == show {
			fmt.Fprintf(a.Stdout, "  ... and %d more (git ls-files -- %s)\n", len(tracked)-show, strings.Join(stateDirs(), " "))
			break
		}
		fmt.Fprintf(a.Stdout, "  %s\n", f)
	}
	if beforeSync {
		fmt.Fprintln(a.Stdout, "Carry them to the state branch first (nothing is lost):\n  agentx-hook sync --init-from HEAD")
	}
	fmt.Fprintf(a.Stdout, "Then stop tracking them (they stay on disk; .agentx/.gitignore now ignores %s):\n", strings.Join(workspace.OnStateBranch(), " "))
	for _, c := range untrackCommands() {
		fmt.Fprintf(a.Stdout, "  %s\n", c)
	}
}

// writeGitignore creates .agentx/.gitignore, or adds GitHub Mode's block
// to the one a user has, and reports what it did.
func writeGitignore(ws workspace.Workspace, mode string, report func(action, path string)) error {
	gi := ws.GitignoreFile()
	current, err := os.ReadFile(gi)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// What stays local (locks, spools, crash markers, derived indexes)
		// is workspace's knowledge: never committed.
		if err := atomicfile.Write(gi, workspace.GitignoreForMode(mode), atomicfile.Options{}); err != nil {
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
		if err := atomicfile.Write(gi, next, atomicfile.Options{}); err != nil {
			return err
		}
		report("updated", gi)
	}
	return nil
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}
