package hookcmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/setup"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

const uninstallUsage = `uninstall [--dry-run] [--yes] [--json]

Takes out of this repository everything agentx added to it: the hooks and
MCP registrations of every host (setup --remove for Claude Code, Codex and
Copilot; the user's own entries stay), the git hooks and the merge driver,
agentx's section of AGENTS.md (the user's text stays), refs/agentx/
(checkpoints, sync bases), the state branch's remote-tracking ref and
.git/agentx/ (caches), and .agentx/ with everything in it, the ledgers and memory included. It then
prints what it cannot remove, with the command that does: the state
branch on the remote, the Action's labels, the workflows you copied.

--dry-run lists all of it and changes nothing; the removal itself needs
--yes. Files git tracks (.agentx/agentx.toml, AGENTS.md, the hosts'
settings) are removed or changed in the work tree only: it prints the
git add and git commit that record that.

Examples:
  agentx-hook uninstall --dry-run
  agentx-hook uninstall --yes
  agentx-hook uninstall --dry-run --json`

type uninstallOptions struct {
	jsonFlag
	DryRun, Yes bool
}

func parseUninstall(a *App, args []string) (*uninstallOptions, error) {
	o := &uninstallOptions{}
	flags := newFlags(a, "uninstall", uninstallUsage)
	flags.BoolVar(&o.DryRun, "dry-run", false, "list what would be removed and change nothing")
	flags.BoolVar(&o.Yes, "yes", false, "remove it (.agentx/ holds the ledgers and memory)")
	o.register(flags)
	if err := parseFlagsOnly(flags, args); err != nil {
		return o, err
	}
	if !o.DryRun && !o.Yes {
		return o, usagef("uninstall removes .agentx/ (its ledgers and memory too) and agentx's wiring: see what with `agentx-hook uninstall --dry-run`, then run `agentx-hook uninstall --yes`")
	}
	return o, nil
}

// uninstallDoc is uninstall's --json document.
type uninstallDoc struct {
	DryRun  bool            `json:"dryRun"`
	Removed []setup.Removal `json:"removed"`
	Manual  []setup.Manual  `json:"manual"`
	Tracked []string        `json:"tracked"`
	Root    string          `json:"root"`
	schemaVersion
}

func runUninstall(ctx context.Context, a *App, o *uninstallOptions) error {
	root := a.Workspace().Root
	u, err := setup.Uninstall(ctx, a.Workspace(), o.DryRun)
	if err != nil {
		return err
	}
	doc := &uninstallDoc{DryRun: o.DryRun, Removed: jsonfile.List(u.Removed), Manual: jsonfile.List(u.Manual),
		Tracked: jsonfile.List(u.Tracked), Root: root}
	var b strings.Builder
	verb := ""
	if o.DryRun {
		verb = "would be "
	}
	if len(u.Removed) == 0 {
		fmt.Fprintf(&b, "nothing of agentx's in %s\n", root)
	}
	for _, r := range u.Removed {
		fmt.Fprintf(&b, "%-17s %s\n", verb+r.Action, r.What)
	}
	if len(u.Tracked) > 0 {
		were := "were"
		if o.DryRun {
			were = "would be"
		}
		fmt.Fprintf(&b, "\n%d files git tracks %s removed or changed: commit that:\n  git add -A -- %s && git commit -m \"Remove agentx\"\n",
			len(u.Tracked), were, strings.Join(commitPaths(u.Tracked), " "))
	}
	if len(u.Manual) > 0 {
		b.WriteString("\nNot removed (each with the command that removes it):\n")
		for _, m := range u.Manual {
			fmt.Fprintf(&b, "  %s\n    %s\n", m.What, m.Command)
		}
	}
	b.WriteString("\nThe binaries stay: rm \"$(command -v agentx-hook)\" \"$(command -v agentx-mcp)\" \"$(command -v agentx-view)\"\n")
	return a.emit(o.JSON, doc, b.String())
}

// commitPaths are the pathspecs of git add for the tracked files uninstall
// removed or changed: .agentx for all under it, each other file by name
// (quoted for the shell where it needs it), sorted.
func commitPaths(tracked []string) []string {
	var paths []string
	for _, p := range tracked {
		if p == workspace.Dir || strings.HasPrefix(p, workspace.Dir+"/") {
			p = workspace.Dir
		}
		p = shellQuote(p) // mcp.go
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths
}
