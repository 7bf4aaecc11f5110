package hookcmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/issueref"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/validate"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

const hooksUsage = `hooks install [--force] [--json]
       agentx-hook hooks uninstall [--json]
       agentx-hook hooks status [--json]

Installs agentx's git hooks where git looks for them (core.hooksPath when set,
as lefthook, husky and pre-commit setups do; else .git/hooks):
  post-commit  records a code-change observation (commit subject and files)
               for the issue the branch names (42-fix-login, feat/42-x, ...)
  pre-push     runs the clarification monitor
  post-merge   runs the clarification monitor
Each hook file is a small sh shim marked "# agentx-hook managed" that runs
` + "`agentx-hook git-hook NAME`" + ` (found on PATH, or $AGENTX_HOOK_BIN). A hook
already there is never overwritten: it is kept as NAME.agentx-chained, runs
first and decides the hook's exit status; uninstall renames it back.
AGENTX=0 turns agentx's part off for one command; our own failures never
block git. --force rewrites our shims, and where a foreign hook replaced ours
while one is still chained, keeps both (the old one as NAME.agentx-chained.N).` + hooksMergeDriverUsage

func runHooks(ctx context.Context, a *App, args []string) error {
	subs := map[string]func(context.Context, *App, []string) error{
		"install": runHooksInstall, "uninstall": runHooksUninstall, "status": runHooksStatus,
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, ok := subs[args[0]]
		if !ok {
			return usagef("unknown hooks subcommand %q (install, uninstall, status)", args[0])
		}
		return sub(ctx, a, args[1:])
	}
	fs := newFlags(a, "hooks", hooksUsage)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	return usagef("hooks needs a subcommand (install, uninstall, status)")
}

// hooksLocation asks git where the hooks of the workspace's repository go.
func (a *App) hooksLocation(ctx context.Context) (githooks.Location, error) {
	root := a.Workspace().Root
	loc, err := githooks.Locate(ctx, githooks.ExecRunner{Dir: root}, root)
	if err != nil {
		return loc, errcode.Wrap(errcode.NotFound, err, "%s is not in a git repository", root)
	}
	return loc, nil
}

// readHooks parses a hooks subcommand's flags (it takes no arguments),
// asks git where hooks go and reads what is there.
func (a *App) readHooks(ctx context.Context, fs *flag.FlagSet, args []string) (githooks.Location, *githooks.Snapshot, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return githooks.Location{}, nil, err
	}
	if len(pos) > 0 {
		return githooks.Location{}, nil, usagef("%s takes no arguments (got %q)", fs.Name(), pos[0])
	}
	loc, err := a.hooksLocation(ctx)
	if err != nil {
		return loc, nil, err
	}
	snap, err := githooks.Read(loc.Dir)
	if err != nil {
		return loc, nil, err
	}
	snap.HooksPath = loc.HooksPath
	root := a.Workspace().Root
	githooks.MarkTracked(ctx, githooks.ExecRunner{Dir: root}, root, snap)
	return loc, snap, nil
}

// hooksChange plans with plan and applies it, then reports.
func hooksChange(ctx context.Context, a *App, name string, args []string, plan func(*githooks.Snapshot, bool) []githooks.Step) error {
	fs := newFlags(a, "hooks "+name, hooksUsage)
	force, mergeDriver := false, false
	if name == "install" {
		fs.BoolVar(&force, "force", false, "rewrite our shims; keep both hooks where a foreign hook replaced ours")
		fs.BoolVar(&mergeDriver, "merge-driver", false, "also register the semantic merge driver for state files")
	}
	asJSON := fs.Bool("json", false, "print one JSON document")
	loc, snap, err := a.readHooks(ctx, fs, args)
	if err != nil {
		return err
	}
	steps := plan(snap, force)
	if err := githooks.Apply(loc.Dir, steps); err != nil {
		return fmt.Errorf("hooks %s in %s: %w", name, loc.Dir, err)
	}
	md, err := a.mergeDriverChange(ctx, name, mergeDriver)
	if err != nil {
		return err
	}
	notes := a.hooksNotes(name, loc, steps)
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "hooksDir": loc.Dir,
			"hooksPath": loc.HooksPath, "steps": steps, "notes": nonNil(notes), "mergeDriver": md})
	}
	fmt.Fprintf(a.Stdout, "Hooks directory: %s\n", loc.Dir)
	for _, st := range steps {
		line := fmt.Sprintf("  %-12s %s", st.Hook, st.Kind)
		if st.Detail != "" {
			line += ": " + st.Detail
		}
		fmt.Fprintln(a.Stdout, line)
	}
	printMergeDriver(a.Stdout, md)
	for _, n := range notes {
		fmt.Fprintf(a.Stderr, "note: %s\n", n)
	}
	return nil
}

// hooksNotes is the advice an install or uninstall leaves the user.
func (a *App) hooksNotes(name string, loc githooks.Location, steps []githooks.Step) []string {
	var notes []string
	for _, st := range steps {
		if st.Kind == githooks.Conflict && name == "install" {
			notes = append(notes, st.Hook+": left alone; `agentx-hook hooks install --force` keeps both hooks and chains the current one")
		}
	}
	if name != "install" {
		return notes
	}
	if loc.HooksPath != "" {
		m := githooks.Manager(loc.HooksPath, nil)
		if m == "" {
			m = "a hooks manager"
		}
		notes = append(notes, fmt.Sprintf("core.hooksPath is %s (%s): reinstalling it may rewrite these files; hooks/README.md shows how to call agentx-hook from its own configuration instead", loc.HooksPath, m))
	}
	if _, err := os.Stat(a.Workspace().AgentxDir()); errors.Is(err, fs.ErrNotExist) {
		notes = append(notes, "no .agentx/ here yet: the hooks do nothing until `agentx-hook init`")
	}
	if a.Getenv("AGENTX_HOOK_BIN") == "" {
		if _, err := exec.LookPath("agentx-hook"); err != nil {
			notes = append(notes, "agentx-hook is not on PATH: the hooks will skip until it is, or set AGENTX_HOOK_BIN")
		}
	}
	return notes
}

func runHooksInstall(ctx context.Context, a *App, args []string) error {
	return hooksChange(ctx, a, "install", args, githooks.PlanInstall)
}

func runHooksUninstall(ctx context.Context, a *App, args []string) error {
	return hooksChange(ctx, a, "uninstall", args, func(s *githooks.Snapshot, _ bool) []githooks.Step {
		return githooks.PlanUninstall(s)
	})
}

func runHooksStatus(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "hooks status", hooksUsage)
	asJSON := fs.Bool("json", false, "print one JSON document")
	loc, snap, err := a.readHooks(ctx, fs, args)
	if err != nil {
		return err
	}
	hooks := githooks.Status(snap)
	md, err := a.mergeDriverStatus(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, map[string]any{"schema_version": SchemaVersion, "hooksDir": loc.Dir,
			"hooksPath": loc.HooksPath, "hooks": hooks, "mergeDriver": md})
	}
	fmt.Fprintf(a.Stdout, "Hooks directory: %s", loc.Dir)
	if loc.HooksPath != "" {
		fmt.Fprintf(a.Stdout, " (core.hooksPath = %s)", loc.HooksPath)
	}
	fmt.Fprintln(a.Stdout)
	for _, h := range hooks {
		line := fmt.Sprintf("  %-12s %s", h.Hook, h.State)
		if h.Chained {
			line += ", runs " + h.Hook + githooks.ChainedSuffix + " first"
		}
		if h.Manager != "" {
			line += " (" + h.Manager + ")"
		}
		if h.Tracked {
			line += ", tracked by the repository"
		}
		if len(h.Backups) > 0 {
			line += "; backups: " + strings.Join(h.Backups, ", ")
		}
		fmt.Fprintln(a.Stdout, line)
	}
	printMergeDriver(a.Stdout, md)
	return nil
}

const gitHookUsage = `git-hook NAME [ARGS...]

What the hook shims run (see ` + "`agentx-hook hooks --help`" + `): post-commit
records a code-change observation, pre-push and post-merge run the monitor.
It does nothing outside a workspace (no .agentx/) or with AGENTX=0, and it
always exits 0: a problem is one warning on stderr, never a blocked git.

The observation's agent is $AGENTX_AGENT, else "engineer"; its issue is
$AGENTX_ISSUE, else the number the branch names; with neither, nothing is
recorded. Its content is the commit's short hash and subject, then the
changed files (git show --name-status, at most 40), sanitised.`

// runGitHook is what the shims run. It fails open: whatever happens, the
// warning goes to stderr and the exit status is 0.
func runGitHook(ctx context.Context, a *App, args []string) error {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		fmt.Fprintf(a.Stdout, "Usage: agentx-hook %s\n", gitHookUsage)
		return nil
	}
	if len(args) == 0 {
		a.warn("agentx git-hook: no hook name given; nothing done")
		return nil
	}
	name := args[0]
	if a.Getenv("AGENTX") == "0" {
		return nil
	}
	if _, err := os.Stat(a.Workspace().AgentxDir()); err != nil {
		return nil // not an agentx workspace: the hooks stay silent
	}
	var err error
	switch name {
	case "post-commit":
		err = a.recordCommit(ctx)
	case "pre-push", "post-merge":
		err = a.gitHookMonitor(ctx, name)
	default:
		a.warn("agentx git-hook: %q is not one of agentx's hooks (%s); nothing done", name, strings.Join(githooks.Names(), ", "))
	}
	if err != nil {
		a.warn("agentx %s: %v", name, err)
	}
	return nil
}

// maxCommitFiles bounds the file list of a code-change observation: a
// vendoring commit would otherwise fill it with paths.
const maxCommitFiles = 40

// recordCommit stores HEAD as a code-change observation.
func (a *App) recordCommit(ctx context.Context) error {
	if !a.memorySettings().IsEnabled() {
		return nil
	}
	root := a.Workspace().Root
	issue, ok, err := issueref.Resolve("", a.Getenv("AGENTX_ISSUE"), workspace.GitBranch(root))
	if err != nil {
		return err
	}
	if !ok {
		return nil // no issue to file it under: a commit on main, a detached HEAD
	}
	agent := a.Getenv("AGENTX_AGENT")
	if agent == "" {
		agent = "engineer"
	} else if err := validate.Agent("AGENTX_AGENT", agent); err != nil {
		return err
	}
	// git show --no-color --no-ext-diff -m --first-parent
	//   --name-status --format='%h %s' HEAD
	// (-m --first-parent: a merge commit lists what it brought in, on
	// every git version; --diff-merges would need 2.31.)
	// Shelled out, not go-git: the hook runs with git's own environment
	// (GIT_INDEX_FILE during `git commit -a`, GIT_DIR in worktrees).
	cmd := exec.CommandContext(ctx, "git", "show", "--no-color", "--no-ext-diff", "-m", "--first-parent",
		"--name-status", "--format=%h %s", "HEAD")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return fmt.Errorf("git show HEAD: %s", strings.TrimSpace(string(ee.Stderr)))
		}
		return fmt.Errorf("git show HEAD: %w", err)
	}
	content, files := commitContent(string(out))
	if content == "" {
		return nil
	}
	o := memory.Observation{Agent: agent, IssueNumber: issue, Category: memory.CodeChange, Content: sanitize.Text(content)}
	if len(files) > 0 {
		raw, _ := json.Marshal(files)
		o.Extra = append(o.Extra, jsonfile.Field{Key: "files", Value: raw})
	}
	_, err = a.Memory().Store(ctx, []memory.Observation{o})
	return err
}

// commitContent turns `git show --name-status --format='%h %s'` output
// into the observation text and the changed paths. The text is one line,
// "Commit abc1234: subject. Files: M a.go, A b.go", so its summary (the
// first 240 characters) reads well in a search listing and in a recall.
func commitContent(out string) (content string, files []string) {
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	head := strings.TrimSpace(lines[0])
	if head == "" {
		return "", nil
	}
	hash, subject, _ := strings.Cut(head, " ")
	var changes []string
	more := 0
	for _, l := range lines[1:] {
		status, path, ok := strings.Cut(strings.TrimSpace(l), "\t")
		if !ok || status == "" || path == "" {
			continue
		}
		if len(files) == maxCommitFiles {
			more++
			continue
		}
		// A rename or copy names both paths: R100<TAB>old<TAB>new.
		if from, to, renamed := strings.Cut(path, "\t"); renamed {
			path = to
			changes = append(changes, status[:1]+" "+from+" -> "+to)
		} else {
			changes = append(changes, status+" "+path)
		}
		files = append(files, path)
	}
	var b strings.Builder
	b.WriteString("Commit " + hash + ": " + strings.TrimSpace(subject))
	if len(changes) > 0 {
		b.WriteString(". Files: " + strings.Join(changes, ", "))
	}
	if more > 0 {
		b.WriteString(" and " + strconv.Itoa(more) + " more")
	}
	return b.String(), files
}

// gitHookMonitor runs one monitor check and says one line when it acted.
func (a *App) gitHookMonitor(ctx context.Context, hook string) error {
	rep, err := a.checkMonitor(ctx)
	if err != nil {
		return err
	}
	if s := actedSummary(rep); s != "" {
		fmt.Fprintf(a.Stderr, "agentx %s: monitor %s (agentx-hook monitor for details)\n", hook, s)
	}
	a.printWarnings(rep, false)
	return nil
}

// actedSummary is "escalated CLR-42-001, marked stale CLR-7-002", or ""
// when the check changed nothing.
func actedSummary(rep *monitor.Report) string {
	var parts []string
	for _, act := range rep.Actions {
		if act.Kind == monitor.ActSkipped || act.Kind == monitor.ActContinued {
			continue
		}
		parts = append(parts, strings.ReplaceAll(act.Kind, "-", " ")+" "+act.ID)
	}
	return strings.Join(parts, ", ")
}
