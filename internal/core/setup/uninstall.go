package setup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Removal is one thing uninstall took out of the repository (or, planned
// only, would).
type Removal struct {
	What   string `json:"what"`   // a path relative to the root, a git hook, a ref
	Action string `json:"action"` // removed or updated (a file agentx shared with the user)
}

// Manual is something agentx added outside this repository's work tree
// and git directory, which uninstall cannot remove, with the command
// that does.
type Manual struct {
	What    string `json:"what"`
	Command string `json:"command"`
}

// Uninstalled is what uninstall did.
type Uninstalled struct {
	Removed []Removal
	Manual  []Manual
	// Tracked are the files it removed that the branch tracks (under
	// .agentx/, and AGENTS.md when nothing but agentx's section was in
	// it): the user commits their deletion.
	Tracked []string
}

// Labels the Action creates on the repository (sync.Labels' defaults and
// the digest's); a renamed one in [github] is the user's to name.
var actionLabels = []string{"clarification-blocked", "clarification-escalated", "agentx-digest"}

// Uninstall takes out of the repository at ws.Root everything agentx put
// there: the hosts' wiring (setup --remove for every host, MCP
// registrations included), the git hooks and the merge driver, agentx's
// section of AGENTS.md, refs/agentx/ (checkpoints, sync bases) and the
// state branch's remote-tracking ref, and .agentx/ itself (ledgers and
// memory too: the caller asks first). planOnly changes nothing. What lies
// outside (the remote's state branch, labels, workflows the user copied)
// comes back as Manual.
func Uninstall(ctx context.Context, ws workspace.Workspace, planOnly bool) (*Uninstalled, error) {
	root := ws.Root
	out := &Uninstalled{}
	// The settings, read before .agentx/ goes: the remote and branch.
	remote, branch, github := "origin", "agentx/state", false
	if set, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir()); err == nil {
		github = set.Config.Mode == "github"
		if r := set.Config.GitHub.Remote; r != "" {
			remote = r
		}
		if b := set.Config.GitHub.StateBranch; b != "" {
			branch = b
		}
	}

	// 1. Hosts and git hooks, through setup --remove's own plan.
	o := Options{Claude: true, Codex: true, Copilot: true, Remove: true, DryRun: planOnly}
	r, err := Run(ctx, ws, func() (*config.Set, error) { return nil, errors.New("not needed") }, o)
	if err != nil {
		return nil, err
	}
	for _, f := range r.Files {
		if f.Action != string(hostsettings.Unchanged) {
			out.Removed = append(out.Removed, Removal{What: f.Path, Action: f.Action})
		}
	}
	for _, st := range r.GitHooks {
		if st.Changes() {
			out.Removed = append(out.Removed, Removal{What: "git hook " + st.Hook, Action: "removed"})
		}
	}
	if len(r.Notes) > 0 {
		return nil, fmt.Errorf("uninstall: %s", strings.Join(r.Notes, "; "))
	}
	if md, err := githooks.MergeDriverAt(ctx, root); err == nil && (md.Driver != "" || len(md.Missing) < len(githooks.MergeAttributes())) {
		out.Removed = append(out.Removed, Removal{What: "merge driver (git config merge.agentx, .gitattributes lines)", Action: "removed"})
		if !planOnly {
			if _, err := githooks.ChangeMergeDriver(ctx, root, false, false); err != nil {
				return nil, err
			}
		}
	}

	// 2. AGENTS.md: agentx's section, the user's text kept.
	agentsPath := filepath.Join(root, hostsettings.AgentsFile)
	if old, err := atomicfile.ReadRegular(agentsPath, hostsettings.MaxFileSize); err == nil {
		next, changed, err := hostsettings.RemoveAgentsSection(old)
		if err != nil {
			return nil, err
		}
		if changed {
			action := "updated"
			if len(next) == 0 {
				action = "removed"
			}
			out.Removed = append(out.Removed, Removal{What: hostsettings.AgentsFile + " (agentx's section)", Action: action})
			if action == "removed" {
				if ls, err := (gitcmd.Exec{Dir: root}).Git(ctx, "ls-files", "--", hostsettings.AgentsFile); err == nil {
					out.Tracked = append(out.Tracked, gitcmd.Lines(ls)...)
				}
			}
			if !planOnly {
				if action == "removed" {
					err = os.Remove(agentsPath)
				} else {
					err = atomicfile.Write(agentsPath, next, atomicfile.Options{})
				}
				if err != nil {
					return nil, fmt.Errorf("uninstall: %w", err)
				}
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("uninstall: read %s: %w", agentsPath, err)
	}

	// 3. Refs: refs/agentx/ and the state branch's remote-tracking ref.
	tracking := "refs/remotes/" + remote + "/" + branch
	if repo, err := gitstore.Open(root); err == nil {
		refs, err := repo.Refs("refs/agentx/", tracking)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(refs))
		for name := range refs {
			if strings.HasPrefix(name, "refs/agentx/") || name == tracking {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			out.Removed = append(out.Removed, Removal{What: name, Action: "removed"})
			if !planOnly {
				if err := repo.RemoveRefAndLog(name); err != nil {
					return nil, err
				}
			}
		}
		if slices.Contains(names, tracking) {
			github = true
		}
	}

	// 4. .agentx/ with everything in it; the files the branch tracks are
	// named, so their deletion gets committed.
	if _, err := os.Lstat(ws.AgentxDir()); err == nil {
		if ls, err := (gitcmd.Exec{Dir: root}).Git(ctx, "ls-files", "--", workspace.Dir); err == nil {
			out.Tracked = append(out.Tracked, gitcmd.Lines(ls)...)
		}
		out.Removed = append(out.Removed, Removal{What: workspace.Dir + "/", Action: "removed"})
		if !planOnly {
			if err := os.RemoveAll(ws.AgentxDir()); err != nil {
				return nil, fmt.Errorf("uninstall: %w", err)
			}
		}
	}

	// 5. What lies outside the repository.
	if github {
		out.Manual = append(out.Manual, Manual{What: "the state branch " + branch + " on " + remote,
			Command: "git push " + remote + " --delete " + branch})
		for _, l := range actionLabels {
			out.Manual = append(out.Manual, Manual{What: "the label " + l + " (the Action's)", Command: "gh label delete " + l + " --yes"})
		}
	}
	if wf, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "agentx*.yml")); len(wf) > 0 {
		rel := make([]string, 0, len(wf))
		for _, f := range wf {
			p, _ := filepath.Rel(root, f)
			rel = append(rel, filepath.ToSlash(p))
		}
		out.Manual = append(out.Manual, Manual{What: "the workflows you copied (" + strings.Join(rel, ", ") + "), and agentx-sync.yml on the state branch",
			Command: "git rm " + strings.Join(rel, " ")})
	}
	return out, nil
}
