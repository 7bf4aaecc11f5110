package hookcmd

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/initws"
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
	if err := parseFlagsOnly(flags, args); err != nil {
		return o, err
	}
	switch o.Mode {
	case "", "local", "github":
	default:
		return o, usagef("init: --mode must be local or github, not %q", o.Mode)
	}
	return o, nil
}

func runInit(ctx context.Context, a *App, o *initOptions) error {
	ws := a.Workspace()
	// report prints each file as it is written, or collects it for --json.
	results := []initws.File{}
	report := func(action, path string) {
		if o.JSON {
			results = append(results, initws.File{Path: filepath.ToSlash(rel(ws.Root, path)), Action: action})
			return
		}
		fmt.Fprintf(a.Stdout, "%-8s %s\n", action, rel(ws.Root, path))
	}
	mode, err := initws.Run(ws, o.Options, report)
	if err != nil {
		return err
	}
	var tracked initws.Tracked
	if mode == "github" {
		tracked = initws.FindTracked(ctx, ws.Root)
	}
	if o.JSON {
		return a.writeDoc(&initws.Doc{Root: ws.Root, Files: results, Mode: mode, Tracked: tracked})
	}
	mode = cmp.Or(mode, "local")
	fmt.Fprintf(a.Stdout, "agentx initialised in %s (mode %s)\n", ws.Root, mode)
	a.printLines(tracked.Lines(true), nil)
	return nil
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}
