package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/gitcmd"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/hooklog"
	"github.com/agentx-dev/agentx/internal/core/statesync"
)

const hooksUsage = `hooks install [--force] [--merge-driver] [--json]
       agentx-hook hooks uninstall [--json]
       agentx-hook hooks status [--json]

Installs agentx's git hooks where git looks for them (core.hooksPath when set,
as lefthook, husky and pre-commit setups do; else .git/hooks):
  post-commit  records a code-change observation (commit subject and files)
               for the issue the branch names (42-fix-login, feat/42-x, ...),
               and the stage artifacts it wrote (docs/artifacts.md)
  pre-push     runs the clarification monitor
  post-merge   records the stage artifacts the merge brought in, brings the
               memory search index in line with the memory files the merge
               changed, and runs the monitor
Each hook file is a small sh shim marked "# agentx-hook managed" that runs
` + "`agentx-hook git-hook NAME`" + ` (found on PATH, or $AGENTX_HOOK_BIN). A hook
already there is never overwritten: it is kept as NAME.agentx-chained, runs
first and decides the hook's exit status; uninstall renames it back.
AGENTX=0 turns agentx's part off for one command; our own failures never
block git. --force rewrites our shims, and where a foreign hook replaced ours
while one is still chained, keeps both (the old one as NAME.agentx-chained.N).` + hooksMergeDriverUsage

func runHooks(ctx context.Context, a *App, args []string) error {
	subs := map[string]runFunc{
		"install":   wire(parseHooksChange("install"), runHooksChange),
		"uninstall": wire(parseHooksChange("uninstall"), runHooksChange),
		"status":    wire(parseHooksStatus, runHooksStatus),
	}
	return a.dispatch(ctx, "hooks", hooksUsage, "install, uninstall, status", inMap(subs), nil, args)
}

// hooksChangeOptions is the command line of `hooks install|uninstall`.
type hooksChangeOptions struct {
	Name        string // install or uninstall
	Force       bool   // install: rewrite our shims, chain a foreign hook that replaced ours
	MergeDriver bool   // install: register the merge driver too
	jsonFlag
}

// parseHooksChange returns the parser of `hooks NAME` (install or
// uninstall); neither takes arguments.
func parseHooksChange(name string) func(*App, []string) (*hooksChangeOptions, error) {
	return func(a *App, args []string) (*hooksChangeOptions, error) {
		o := &hooksChangeOptions{Name: name}
		flags := newFlags(a, "hooks "+name, hooksUsage)
		if name == "install" {
			flags.BoolVar(&o.Force, "force", false, "rewrite our shims; keep both hooks where a foreign hook replaced ours")
			flags.BoolVar(&o.MergeDriver, "merge-driver", false, "also register the semantic merge driver for state files")
		}
		o.register(flags)
		return o, parseFlagsOnly(flags, args)
	}
}

// runHooksChange plans the install or uninstall and applies it, then reports.
func runHooksChange(ctx context.Context, a *App, o *hooksChangeOptions) error {
	loc, steps, err := githooks.Change(ctx, a.Workspace().Root, o.Name == "install", o.Force, false)
	if err != nil {
		return err
	}
	md, err := githooks.ChangeMergeDriver(ctx, a.Workspace().Root, o.Name == "install", o.MergeDriver)
	if err != nil {
		return err
	}
	a.auditHooks(ctx, o.Name, loc.Dir, steps)
	_, statErr := os.Stat(a.Workspace().AgentxDir())
	_, pathErr := exec.LookPath("agentx-hook")
	notes := githooks.Notes(o.Name == "install", loc, steps, errors.Is(statErr, fs.ErrNotExist),
		a.Getenv("AGENTX_HOOK_BIN") == "" && pathErr != nil)
	if o.JSON {
		return a.writeDoc(githooks.NewChangeDoc(loc, steps, notes, md))
	}
	a.printLines(githooks.ChangeLines(loc, steps, md), nil)
	for _, n := range notes {
		fmt.Fprintf(a.Stderr, "note: %s\n", n)
	}
	return nil
}

func parseHooksStatus(a *App, args []string) (*jsonOnlyOptions, error) {
	return parseNoArgs("hooks status", hooksUsage)(a, args)
}

func runHooksStatus(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	loc, snap, err := githooks.Open(ctx, a.Workspace().Root)
	if err != nil {
		return err
	}
	hooks := githooks.Status(snap)
	md, err := githooks.MergeDriverAt(ctx, a.Workspace().Root)
	if err != nil {
		return err
	}
	return a.emit(o.JSON, &githooks.StatusDoc{HooksDir: loc.Dir, HooksPath: loc.HooksPath, Hooks: hooks, MergeDriver: md},
		strings.Join(githooks.StatusLines(loc, hooks, md), "\n")+"\n")
}

const gitHookUsage = `git-hook NAME [ARGS...]

What the hook shims run (see ` + "`agentx-hook hooks --help`" + `): post-commit
records a code-change observation and the stage artifacts the commit wrote
(a path a workflow step's output names: docs/prd/PRD-42.md), saying which
artifacts that made stale; pre-push runs the monitor; post-merge records the
artifacts the merge brought in, then runs the monitor.
It does nothing outside a workspace (no .agentx/) or with AGENTX=0, and it
always exits 0: a problem is one warning on stderr, never a blocked git.
It stops by [hooks] deadline in agentx.toml (default 10s), naming what it
skipped.

The observation's agent is $AGENTX_AGENT, else the agent of the step whose
artifact the commit wrote, else "engineer"; its issue is $AGENTX_ISSUE, else
the number the branch names, else the artifact's; with none, nothing is
recorded. Its content is the commit's short hash and subject, then the
changed files (git show --name-status, at most 40), sanitised.`

// gitHookOptions is `git-hook`'s command line: the hook's name and the
// arguments git passed it (unused).
type gitHookOptions struct {
	Name string
	Args []string
}

// parseGitHook never fails: a hook shim must not block git, so even a
// missing name is only a warning (runGitHook).
func parseGitHook(a *App, args []string) (*gitHookOptions, error) {
	// --help before or after the hook's name (git passes no such argument
	// to any of the three hooks: pre-push's are a remote and its URL,
	// post-merge's a 0 or 1).
	if slices.ContainsFunc(args, func(s string) bool { return s == "--help" || s == "-h" }) {
		fmt.Fprintf(a.Stdout, "Usage: agentx-hook %s\n", gitHookUsage)
		printExamples(a.Stdout, "git-hook")
		return nil, errHelp
	}
	o := &gitHookOptions{}
	if len(args) > 0 {
		o.Name, o.Args = args[0], args[1:]
	}
	return o, nil
}

// runGitHook is what the shims run. It fails open: whatever happens, the
// warning goes to stderr and the exit status is 0.
func runGitHook(ctx context.Context, a *App, o *gitHookOptions) error {
	began := time.Now()
	if o.Name == "" {
		a.warn("agentx git-hook: no hook name given; nothing done")
		return nil
	}
	name := o.Name
	if a.Getenv("AGENTX") == "0" {
		return nil
	}
	if why, ok := a.inWorkspace("git-hook " + name); !ok {
		a.warn("%s", why)
		return nil
	}
	var step func(context.Context) error
	stepName := ""
	switch name {
	case "post-commit":
		stepName, step = "commit observation", a.recordCommit
	case "post-merge":
		// A merge or pull brings in the artifacts others wrote: recorded
		// first, so the monitor sees what they made stale.
		stepName, step = "monitor", func(ctx context.Context) error {
			a.recordMergedArtifacts(ctx)
			return a.gitHookMonitor(ctx, name)
		}
	case "pre-push":
		stepName, step = "monitor", func(ctx context.Context) error { return a.gitHookMonitor(ctx, name) }
	default:
		a.warn("agentx git-hook: %q is not one of agentx's hooks (%s); nothing done", name, strings.Join(githooks.Names(), ", "))
		return nil
	}
	run, end := a.startHookRun(ctx, began, a.hookDeadline(0), hooklog.Entry{Command: "git-hook " + name, Agent: a.Getenv("AGENTX_AGENT")})
	defer end()
	run.Step(stepName, func(ctx context.Context) {
		if err := step(ctx); err != nil {
			a.warn("agentx %s: %v", name, err)
		}
	})
	if name == "post-merge" {
		run.Step("memory index", func(ctx context.Context) {
			if err := a.reindexMerged(ctx); err != nil {
				a.warn("agentx %s: memory index: %v", name, err)
			}
		})
	}
	return nil
}

// reindexMerged brings the memory manifest and index in line with the
// memory issue files the merge changed (git diff ORIG_HEAD HEAD): the
// merge driver merged them into git's temporary files, which git wrote
// into the work tree after the driver had exited, so nothing of agentx
// saw the result until now.
func (a *App) reindexMerged(ctx context.Context) error {
	root := a.Workspace().Root
	out, err := gitcmd.Exec{Dir: root}.Git(ctx, "diff", "--name-only", "--relative", "ORIG_HEAD", "HEAD", "--", ".agentx/memory/")
	if err != nil {
		return err
	}
	var paths []string
	for _, l := range gitcmd.Lines(out) {
		if rel, ok := strings.CutPrefix(l, ".agentx/"); ok && !strings.HasPrefix(rel, "memory/archive/") {
			paths = append(paths, rel)
		}
	}
	return a.Memory().Reindex(ctx, statesync.MemoryIssues(paths))
}

// gitHookMonitor runs one monitor check and says one line when it acted.
func (a *App) gitHookMonitor(ctx context.Context, hook string) error {
	rep, err := a.checkMonitor(ctx)
	if err != nil {
		return err
	}
	if s := rep.Acted(); s != "" {
		fmt.Fprintf(a.Stderr, "agentx %s: monitor %s (agentx-hook monitor for details)\n", hook, s)
	}
	// After a merge or pull (what others wrote came in), the artifacts
	// are checked too; a push changes none, and its hook stays as cheap
	// as it was. In GitHub Mode a git hook has not pulled the other
	// clones' state: it says what is stale and leaves the clarification to
	// `monitor` (CheckArtifacts).
	if hook == "post-merge" {
		a.checkArtifacts(ctx, rep, a.settings().Mode != "github")
		for _, l := range rep.ArtifactLines() {
			fmt.Fprintf(a.Stderr, "agentx %s: %s\n", hook, l)
		}
	}
	a.printWarnings(rep, false)
	return nil
}
