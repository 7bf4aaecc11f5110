package hookcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// initOptions is `init`'s command line.
type initOptions struct {
	Force bool
	Mode  string // local, github, or "" (the mode of an existing agentx.toml)
	jsonFlag
}

const initUsage = "init [--mode local|github] [--force] [--json]\n\nCreates .agentx/ with a default agentx.toml and the feature, story and bug\nworkflows. Existing files are kept unless --force is given.\n\nIn GitHub Mode (--mode github, or mode = \"github\" in an existing agentx.toml)\n.agentx/.gitignore also keeps state/, memory/ and digests/ off code branches:\nthat state lives on the state branch (agentx-hook sync). Commit agentx.toml,\nworkflows/ and .gitignore."

func parseInit(a *App, args []string) (*initOptions, error) {
	o := &initOptions{}
	flags := newFlags(a, "init", initUsage)
	flags.BoolVar(&o.Force, "force", false, "overwrite existing config and workflow files")
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
	Root  string     `json:"root"`
	schemaVersion
}

func runInit(_ context.Context, a *App, o *initOptions) error {
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
	for _, n := range names {
		path := filepath.Join(ws.AgentxDir(), filepath.FromSlash(n))
		if _, err := os.Stat(path); err == nil && !o.Force {
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
	// The mode of the config as it is now (kept, or just written).
	if cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir()); err == nil {
		if mode == "" {
			mode = cfg.Config.Mode
		} else if cfg.Config.Mode != mode && !(mode == "local" && cfg.Config.Mode == "") {
			a.warn("%s was kept and says mode = %q; set mode = %q there (or run init --force)", rel(ws.Root, ws.ConfigFile()), cfg.Config.Mode, mode)
		}
	}
	if err := writeGitignore(ws, mode, report); err != nil {
		return err
	}
	if o.JSON {
		return a.writeDoc(&initDoc{Root: ws.Root, Files: results})
	}
	fmt.Fprintf(a.Stdout, "agentx initialised in %s\n", ws.Root)
	return nil
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
