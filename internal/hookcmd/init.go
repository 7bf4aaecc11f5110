package hookcmd

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/initws"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// initOptions is `init`'s command line.
type initOptions struct {
	initws.Options
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
	ws := a.Workspace()
	// report prints each file as it is written, or collects it for --json.
	results := []initFile{}
	report := func(action, path string) {
		if o.JSON {
			results = append(results, initFile{Path: filepath.ToSlash(rel(ws.Root, path)), Action: action})
			return
		}
		fmt.Fprintf(a.Stdout, "%-8s %s\n", action, rel(ws.Root, path))
	}
	mode, err := initws.Run(ws, o.Options, report)
	if err != nil {
		return err
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
	mode = cmp.Or(mode, "local")
	fmt.Fprintf(a.Stdout, "agentx initialised in %s (mode %s)\n", ws.Root, mode)
	printTrackedState(a, tracked, true)
	return nil
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
			fmt.Fprintf(a.Stdout, "  ... and %d more (git ls-files -- %s)\n", len(tracked)-show, strings.Join(initws.StateDirs(), " "))
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

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}

// sync --init-from names the tracked state files as init does.
var (
	trackedStateFiles = initws.TrackedState
	untrackCommands   = initws.UntrackCommands
)
