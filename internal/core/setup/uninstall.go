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

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/core/gitexclude"
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
	// Tracked are the files it removed or changed that git tracks (under
	// .agentx/, AGENTS.md, CLAUDE.md, the hosts' settings and MCP files,
	// .gitattributes): the user commits that change, so the command that
	// does must name every one.
	Tracked []string
}

// Labels the Action creates on the repository (sync.Labels' defaults and
// the digest's); a renamed one in [github] is the user's to name.
var actionLabels = []string{"clarification-blocked", "clarification-escalated", "agentx-digest"}

// Uninstall takes out of the repository at ws.Root everything agentx put
// there: the hosts' wiring (setup --remove for every host, MCP
// registrations included), the git hooks and the merge driver, agentx's
// section of AGENTS.md, refs/agentx/ (checkpoints, sync bases) and the
// state branch's remote-tracking ref, agentx's caches in the git directory,
// and .agentx/ itself (ledgers and
// memory too: the caller asks first). planOnly changes nothing. What lies
// outside (the remote's state branch, labels, workflows the user copied)
// comes back as Manual.
func Uninstall(ctx context.Context, ws workspace.Workspace, planOnly bool) (*Uninstalled, error) {
	u := &uninstall{ctx: ctx, ws: ws, root: ws.Root, planOnly: planOnly, out: &Uninstalled{},
		remote: "origin", branch: "agentx/state"}
	u.repo, _ = gitstore.Open(ws.Root) // nil: not a repository, no refs, caches or exclude line
	// The settings, read before .agentx/ goes: the remote and branch.
	if set, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir()); err == nil {
		u.github = set.Config.Mode == "github"
		if r := set.Config.GitHub.Remote; r != "" {
			u.remote = r
		}
		if b := set.Config.GitHub.StateBranch; b != "" {
			u.branch = b
		}
		// The status labels the Action puts on issues (sync.StatusLabel).
		for _, st := range artifact.Statuses(set) {
			u.labels = append(u.labels, "status: "+st)
		}
	}
	for _, step := range []func() error{u.hosts, u.agentsMD, u.refs, u.instructions, u.agentxDir} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	u.tracked()
	u.manual()
	return u.out, nil
}

// tracked names the files it removed or changed outside .agentx/ that git
// tracks (the index still lists a file removed from the work tree).
func (u *uninstall) tracked() {
	u.out.Tracked = append(u.out.Tracked, u.lsFiles(u.touched)...)
	sort.Strings(u.out.Tracked)
}

// lsFiles is which of paths (relative to the root) git tracks; none when
// there are none or this is no repository.
func (u *uninstall) lsFiles(paths []string) []string {
	if len(paths) == 0 {
		return nil
	}
	ls, err := (gitcmd.Exec{Dir: u.root}).Git(u.ctx, append([]string{"ls-files", "--"}, paths...)...)
	if err != nil {
		return nil
	}
	return gitcmd.Lines(ls)
}

// uninstall is one Uninstall run, step by step.
type uninstall struct {
	ctx            context.Context
	ws             workspace.Workspace
	root           string
	planOnly       bool
	out            *Uninstalled
	remote, branch string
	github         bool
	labels         []string       // the workflows' status labels
	repo           *gitstore.Repo // nil outside a git repository
	touched        []string       // files outside .agentx/ removed or changed, relative to root
}

// hosts: the hosts' wiring and the git hooks, through setup --remove's
// own plan, and the merge driver.
func (u *uninstall) hosts() error {
	o := Options{Claude: true, Codex: true, Copilot: true, Remove: true, DryRun: u.planOnly}
	r, err := Run(u.ctx, u.ws, func() (*config.Set, error) { return nil, errors.New("not needed") }, o)
	if err != nil {
		return err
	}
	for _, f := range r.Files {
		if f.Action != string(hostsettings.Unchanged) {
			u.out.Removed = append(u.out.Removed, Removal{What: f.Path, Action: f.Action})
			u.touched = append(u.touched, f.Path)
		}
	}
	for _, st := range r.GitHooks {
		if st.Changes() {
			u.out.Removed = append(u.out.Removed, Removal{What: "git hook " + st.Hook, Action: "removed"})
		}
	}
	if len(r.Notes) > 0 {
		return fmt.Errorf("uninstall: %s", strings.Join(r.Notes, "; "))
	}
	if md, err := githooks.MergeDriverAt(u.ctx, u.root); err == nil && (md.Driver != "" || len(md.Missing) < len(githooks.MergeAttributes())) {
		u.out.Removed = append(u.out.Removed, Removal{What: "merge driver (git config merge.agentx, .gitattributes lines)", Action: "removed"})
		u.touched = append(u.touched, ".gitattributes")
		if !u.planOnly {
			if _, err := githooks.ChangeMergeDriver(u.ctx, u.root, false, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// agentsMD: agentx's section of AGENTS.md, the user's text kept.
func (u *uninstall) agentsMD() error {
	agentsPath := filepath.Join(u.root, hostsettings.AgentsFile)
	old, err := atomicfile.ReadRegular(agentsPath, hostsettings.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("uninstall: read %s: %w", agentsPath, err)
	}
	next, changed, err := hostsettings.RemoveAgentsSection(old)
	if err != nil || !changed {
		return err
	}
	action := "updated"
	if len(next) == 0 {
		action = "removed"
	}
	u.out.Removed = append(u.out.Removed, Removal{What: hostsettings.AgentsFile + " (agentx's section)", Action: action})
	u.touched = append(u.touched, hostsettings.AgentsFile)
	if u.planOnly {
		return nil
	}
	if action == "removed" {
		err = os.Remove(agentsPath)
	} else {
		err = atomicfile.Write(agentsPath, next, atomicfile.Options{ClearDead: true})
	}
	if err != nil {
		return fmt.Errorf("uninstall: %w", err)
	}
	return nil
}

// refs: refs/agentx/ and the state branch's remote-tracking ref.
func (u *uninstall) refs() error {
	tracking := "refs/remotes/" + u.remote + "/" + u.branch
	repo := u.repo
	if repo == nil {
		return nil // not a repository: no refs
	}
	refs, err := repo.Refs("refs/agentx/", tracking)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(refs))
	for name := range refs {
		if strings.HasPrefix(name, "refs/agentx/") || name == tracking {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		u.out.Removed = append(u.out.Removed, Removal{What: name, Action: "removed"})
		if !u.planOnly {
			if err := repo.RemoveRefAndLog(name); err != nil {
				return err
			}
		}
	}
	if slices.Contains(names, tracking) {
		u.github = true
	}
	return u.gitCaches(repo.GitDir)
}

// gitCaches: agentx's directory in this clone's (or linked worktree's) git
// directory: the checkpoint and sync stat caches, the audit lines a
// checkpoint has not written yet. Derived or about .agentx/, which goes
// too; another worktree's own stays with it.
func (u *uninstall) gitCaches(gitDir string) error {
	dir := filepath.Join(gitDir, "agentx")
	if _, err := os.Lstat(dir); err != nil {
		return nil
	}
	what := dir
	if rel, err := filepath.Rel(u.root, dir); err == nil && !strings.HasPrefix(rel, "..") {
		what = filepath.ToSlash(rel)
	}
	u.out.Removed = append(u.out.Removed, Removal{What: what + "/", Action: "removed"})
	if u.planOnly {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("uninstall: %w", err)
	}
	return nil
}

// instructions: Copilot's recall file, which its sessionEnd command writes
// (a tracked one is named for the commit), and the line that keeps it
// out of this clone's git status.
func (u *uninstall) instructions() error {
	rel := hostsettings.CopilotInstructionsFile
	p := filepath.Join(u.root, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err == nil {
		u.out.Removed = append(u.out.Removed, Removal{What: rel, Action: "removed"})
		u.touched = append(u.touched, rel)
		if !u.planOnly {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("uninstall: %w", err)
			}
			_ = os.Remove(filepath.Dir(p)) // .github/instructions/, when it held only ours
		}
	}
	if u.repo == nil || !gitexclude.Has(u.repo.CommonDir, "/"+rel) {
		return nil
	}
	u.out.Removed = append(u.out.Removed, Removal{What: rel + " in .git/info/exclude", Action: "removed"})
	if u.planOnly {
		return nil
	}
	if _, err := gitexclude.Remove(u.repo.CommonDir, "/"+rel); err != nil {
		return fmt.Errorf("uninstall: %w", err)
	}
	return nil
}

// agentxDir: .agentx/ with everything in it; the files the branch tracks
// are named, so their deletion gets committed.
func (u *uninstall) agentxDir() error {
	if _, err := os.Lstat(u.ws.AgentxDir()); err != nil {
		return nil
	}
	if ls, err := (gitcmd.Exec{Dir: u.root}).Git(u.ctx, "ls-files", "--", workspace.Dir); err == nil {
		u.out.Tracked = append(u.out.Tracked, gitcmd.Lines(ls)...)
	}
	u.out.Removed = append(u.out.Removed, Removal{What: workspace.Dir + "/", Action: "removed"})
	if !u.planOnly {
		if err := os.RemoveAll(u.ws.AgentxDir()); err != nil {
			return fmt.Errorf("uninstall: %w", err)
		}
	}
	return nil
}

// manual: what lies outside the repository, with the commands to remove it.
func (u *uninstall) manual() {
	if u.github {
		u.out.Manual = append(u.out.Manual, Manual{What: "the state branch " + u.branch + " on " + u.remote,
			Command: "git push " + u.remote + " --delete " + u.branch})
		for _, l := range actionLabels {
			u.out.Manual = append(u.out.Manual, Manual{What: "the label " + l + " (the Action's)", Command: "gh label delete " + l + " --yes"})
		}
		for _, l := range u.labels {
			u.out.Manual = append(u.out.Manual, Manual{What: "the label " + l + " (the Action's, from a step's status)", Command: "gh label delete '" + strings.ReplaceAll(l, "'", `'\''`) + "' --yes"})
		}
	}
	if wf, _ := filepath.Glob(filepath.Join(u.root, ".github", "workflows", "agentx*.yml")); len(wf) > 0 {
		rel := make([]string, 0, len(wf))
		for _, f := range wf {
			p, _ := filepath.Rel(u.root, f)
			rel = append(rel, filepath.ToSlash(p))
		}
		u.out.Manual = append(u.out.Manual, Manual{What: "the workflows you copied (" + strings.Join(rel, ", ") + "), and agentx-sync.yml on the state branch",
			Command: u.removeFiles(rel)})
	}
}

// removeFiles is the command that removes the files rel (relative to the
// root): git rm for those git tracks, rm for the others (git rm refuses a
// file it does not track, and the command failed for workflows copied and
// not yet committed).
func (u *uninstall) removeFiles(rel []string) string {
	tracked := u.lsFiles(rel)
	var inGit, other []string
	for _, r := range rel {
		if slices.Contains(tracked, r) {
			inGit = append(inGit, r)
		} else {
			other = append(other, r)
		}
	}
	var cmds []string
	if len(inGit) > 0 {
		cmds = append(cmds, "git rm -q -- "+strings.Join(inGit, " "))
	}
	if len(other) > 0 {
		cmds = append(cmds, "rm -- "+strings.Join(other, " "))
	}
	return strings.Join(cmds, " && ")
}
