package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/hostsettings"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const setupUsage = `setup --claude|--codex|--copilot [--agent NAME] [--no-git-hooks] [--dry-run] [--check] [--remove] [--json]

Wires agentx into an agent host and git in one step, merging into the files
already there: every other setting and hook is kept, and a re-run changes
nothing.
  --claude   .claude/settings.json: SessionStart (hook start --format claude),
             SessionEnd and PreCompact (hook finish)
  --codex    .codex/hooks.json: SessionStart (hook start --format codex), Stop
             and PreCompact (hook finish); and [features] codex_hooks = true in
             .codex/config.toml, which Codex needs to run hooks at all
  --copilot  .github/hooks/agentx.json: sessionEnd and agentStop (hook finish),
             each with a bash and a powershell command
Then the git hooks, as ` + "`hooks install`" + ` does (--no-git-hooks skips them).

Without --agent the commands name no agent: each session's agent comes from
$AGENTX_AGENT, else from the host's payload (Claude Code's agent_type for
` + "`claude --agent NAME`" + `), else [hooks] default_agent, so one shared settings
file serves every role. --agent NAME writes the name into the commands (a
file for one role only).
A file that is not valid JSON (or TOML) is reported and left untouched, and
then nothing is written. --dry-run prints the changes as a diff.

--check writes nothing and exits 1 when something would change, listing it
(exit 0: everything is in place). --remove undoes what setup added: our hook
entries (the user's other entries and keys stay), Codex's codex_hooks flag
when no other hook in .codex/hooks.json needs it, and the git hooks when no
host file runs agentx any more; a file is removed only when nothing but what
setup wrote is left in it. --remove --check reports what --remove would do.`

// setupOptions is `setup`'s command line.
type setupOptions struct {
	Claude, Codex, Copilot bool
	Agent                  string
	NoGitHooks             bool
	DryRun                 bool
	Check                  bool
	Remove                 bool
	jsonFlag
	// printed: the --check document is out, so its failure must not print
	// a second one (wire asks jsonMode).
	printed bool
}

func (o *setupOptions) jsonMode() bool { return o.JSON && !o.printed }

// hosts are the hosts the options name, in setup's order.
func (o *setupOptions) hosts() []hostsettings.Host {
	var hs []hostsettings.Host
	for _, on := range []struct {
		set  bool
		name string
	}{{o.Claude, hostsettings.Claude}, {o.Codex, hostsettings.Codex}, {o.Copilot, hostsettings.Copilot}} {
		if h, ok := hostsettings.For(on.name); ok && on.set {
			hs = append(hs, h)
		}
	}
	return hs
}

// writes reports whether the run may change files.
func (o *setupOptions) writes() bool { return !o.DryRun && !o.Check }

func parseSetup(a *App, args []string) (*setupOptions, error) {
	o := &setupOptions{}
	flags := newFlags(a, "setup", setupUsage)
	flags.BoolVar(&o.Claude, "claude", false, "wire Claude Code (.claude/settings.json)")
	flags.BoolVar(&o.Codex, "codex", false, "wire Codex (.codex/hooks.json and .codex/config.toml)")
	flags.BoolVar(&o.Copilot, "copilot", false, "wire GitHub Copilot (.github/hooks/agentx.json)")
	flags.StringVar(&o.Agent, "agent", "", "write this agent `name` into the commands (default: $AGENTX_AGENT or the host payload at run time)")
	flags.BoolVar(&o.NoGitHooks, "no-git-hooks", false, "leave the git hooks alone")
	flags.BoolVar(&o.DryRun, "dry-run", false, "print the changes as a diff and write nothing")
	flags.BoolVar(&o.Check, "check", false, "write nothing; exit 1 when something would change")
	flags.BoolVar(&o.Remove, "remove", false, "undo what setup added, keeping everything else")
	o.register(flags)
	pos, err := parse(flags, args)
	if err != nil {
		return o, err
	}
	if len(pos) > 0 {
		return o, usagef("setup takes no arguments (got %q)", pos[0])
	}
	if !o.Claude && !o.Codex && !o.Copilot {
		return o, usagef("setup needs --claude, --codex or --copilot")
	}
	if o.Agent != "" {
		if o.Remove {
			return o, usagef("setup --remove takes no --agent: it removes agentx's entries whatever agent they name")
		}
		if err := validate.Agent("--agent", o.Agent); err != nil {
			return o, usagef("%v", err)
		}
	}
	return o, nil
}

// setupFile is one file setup created, updated, removed or found as wanted.
type setupFile struct {
	Action string `json:"action"` // created, updated, removed or unchanged
	Diff   string `json:"diff,omitempty"`
	Path   string `json:"path"` // relative to the root
	old    []byte
	new    []byte
}

type setupDoc struct {
	Check bool `json:"check"`
	// Error is set when --check found changes pending (exit 1).
	Error    *errorBody      `json:"error,omitempty"`
	DryRun   bool            `json:"dryRun"`
	Files    []setupFile     `json:"files"`
	GitHooks []githooks.Step `json:"gitHooks"`
	// InPlace is set when nothing would change (--check's answer).
	InPlace bool     `json:"inPlace"`
	Notes   []string `json:"notes"`
	Remove  bool     `json:"remove"`
	Root    string   `json:"root"`
	schemaVersion
}

func runSetup(ctx context.Context, a *App, o *setupOptions) error {
	root := a.Workspace().Root
	// Every file is planned before any is written: a corrupt one stops
	// setup with the others untouched too.
	plans, err := planSetup(root, o)
	if err != nil {
		return err
	}
	if o.writes() {
		if err := writeSetup(root, plans); err != nil {
			return err
		}
	}
	var notes []string
	var steps []githooks.Step
	switch {
	case o.NoGitHooks:
	case o.Remove:
		steps, notes = a.removeGitHooks(ctx, root, o)
	default:
		if steps, err = a.setupGitHooks(ctx, !o.writes()); err != nil {
			notes = append(notes, fmt.Sprintf("git hooks not installed: %v", err))
		}
	}
	if !o.Remove {
		notes = append(notes, a.setupNotes(o)...)
	}
	pending := setupPending(plans, steps)
	doc := &setupDoc{Check: o.Check, DryRun: o.DryRun, Files: plans, GitHooks: nonNil(steps),
		InPlace: pending == 0, Notes: nonNil(notes), Remove: o.Remove, Root: root}
	var failure *errcode.Error
	if o.Check && pending > 0 {
		failure = errcode.New(errcode.NotFound, "setup --check: %d change%s pending", pending, plural(pending)).
			WithHint("`agentx-hook " + setupCommand(o) + "` makes them")
	}
	return a.reportChecked(o.JSON, &o.printed, doc, &doc.Error, failure, func() { a.printSetup(o, plans, steps, notes) })
}

// setupNotes is the advice setup leaves after wiring.
func (a *App) setupNotes(o *setupOptions) []string {
	var notes []string
	if _, err := os.Stat(a.Workspace().AgentxDir()); err != nil {
		notes = append(notes, "no .agentx/ here yet: the hooks do nothing until `agentx-hook init`")
	}
	if o.Codex {
		notes = append(notes, "Codex runs a project's hooks only once you trust them: review them with /hooks in Codex")
	}
	if o.Agent == "" {
		agent := config.FallbackAgent
		if cfg, err := a.Config(); err == nil {
			agent = cfg.Config.Hooks.DefaultAgentOr()
		}
		how := "set $AGENTX_AGENT for a session to run it as another role"
		if o.Claude {
			// Only Claude Code names the agent in its payload.
			how += " (in Claude Code, `claude --agent NAME` does it too)"
		}
		notes = append(notes, fmt.Sprintf("the commands name no agent: each session runs as [hooks] default_agent (%s); %s", agent, how))
	}
	return notes
}

// setupPending counts the files and git hooks a run changes (or would).
func setupPending(plans []setupFile, steps []githooks.Step) int {
	n := 0
	for _, f := range plans {
		if f.Action != string(hostsettings.Unchanged) {
			n++
		}
	}
	for _, st := range steps {
		if st.Changes() {
			n++
		}
	}
	return n
}

// setupCommand is the setup command line for o's hosts without --check
// and the program name: what makes the changes --check found.
func setupCommand(o *setupOptions) string {
	cmd := "setup"
	for _, h := range o.hosts() {
		cmd += " --" + h.Name
	}
	if o.Agent != "" {
		cmd += " --agent " + o.Agent
	}
	if o.Remove {
		cmd += " --remove"
	}
	if o.NoGitHooks {
		cmd += " --no-git-hooks"
	}
	return cmd
}

// readHostFiles reads the files hosts' wiring touches under root, each up
// to one byte past hostsettings.MaxFileSize (which refuses it).
func readHostFiles(root string, hosts []hostsettings.Host) (hostsettings.Files, error) {
	files := hostsettings.Files{}
	for _, h := range hosts {
		for _, rel := range h.Paths() {
			data, err := readHostFile(filepath.Join(root, filepath.FromSlash(rel)))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("setup: %w", err)
			}
			files[rel] = data
		}
	}
	return files, nil
}

func readHostFile(path string) ([]byte, error) {
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	return io.ReadAll(io.LimitReader(f, hostsettings.MaxFileSize+1))
}

// planSetup computes every file's new content.
func planSetup(root string, o *setupOptions) ([]setupFile, error) {
	hosts := o.hosts()
	files, err := readHostFiles(root, hosts)
	if err != nil {
		return nil, err
	}
	var plans []setupFile
	for _, h := range hosts {
		var edits []hostsettings.Edit
		if o.Remove {
			edits, err = hostsettings.Unwire(h, files)
		} else {
			edits, err = hostsettings.Wire(h, files, o.Agent)
		}
		var fe *hostsettings.FileError
		if errors.As(err, &fe) {
			return nil, errcode.Wrap(errcode.InvalidInput, fe.Err, "%s", fe.Path).
				WithHint("fix or move the file by hand; setup left it untouched and wrote nothing")
		}
		if err != nil {
			return nil, err
		}
		for _, e := range edits {
			f := setupFile{Path: e.Path, old: e.Old, new: e.New, Action: string(e.Action)}
			if e.Changes() {
				f.Diff = string(diff.Diff("a/"+f.Path, e.Old, "b/"+f.Path, e.New))
			}
			plans = append(plans, f)
		}
	}
	return plans, nil
}

// writeSetup writes (or removes) the planned files that change, each
// atomically.
func writeSetup(root string, plans []setupFile) error {
	for _, f := range plans {
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		switch hostsettings.Action(f.Action) {
		case hostsettings.Unchanged:
			continue
		case hostsettings.Removed:
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("setup: %w", err)
			}
			removeEmptyDirs(root, filepath.Dir(path))
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		if err := atomicfile.Write(path, f.new, atomicfile.Options{}); err != nil {
			return fmt.Errorf("setup: %s: %w", f.Path, err)
		}
	}
	return nil
}

// removeEmptyDirs removes dir and its parents below root while they are
// empty (.codex/, .github/hooks/ that setup made), never root itself.
func removeEmptyDirs(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil { // not empty, or not ours to remove
			return
		}
		dir = filepath.Dir(dir)
	}
}

// removeGitHooks is the git hooks' part of --remove: `hooks uninstall`
// (planned only, with --check or --dry-run), unless a host file setup did
// not touch still runs agentx, whose sessions the git hooks serve too.
func (a *App) removeGitHooks(ctx context.Context, root string, o *setupOptions) ([]githooks.Step, []string) {
	others := &setupOptions{Claude: !o.Claude, Codex: !o.Codex, Copilot: !o.Copilot}
	files, err := readHostFiles(root, others.hosts())
	if err != nil {
		return nil, []string{fmt.Sprintf("git hooks kept: %v", err)}
	}
	for _, h := range others.hosts() {
		if w, err := hostsettings.Inspect(h, files); err == nil && len(w.Wired) > 0 {
			return nil, []string{fmt.Sprintf("git hooks kept: %s still runs agentx (`agentx-hook setup --%s --remove` takes it out)", h.File, h.Name)}
		}
	}
	loc, snap, err := a.readHooks(ctx)
	if err != nil {
		return nil, []string{fmt.Sprintf("git hooks not removed: %v", err)}
	}
	steps := githooks.PlanUninstall(snap)
	if o.writes() {
		if err := githooks.Apply(loc.Dir, steps); err != nil {
			return steps, []string{fmt.Sprintf("git hooks not removed: hooks uninstall in %s: %v", loc.Dir, err)}
		}
	}
	return steps, nil
}

func (a *App) printSetup(o *setupOptions, plans []setupFile, steps []githooks.Step, notes []string) {
	planned := !o.writes()
	for _, f := range plans {
		if o.DryRun && f.Diff != "" {
			fmt.Fprint(a.Stdout, f.Diff)
			continue
		}
		action := f.Action
		if o.Check && action != string(hostsettings.Unchanged) {
			action = "would be " + action
		}
		fmt.Fprintf(a.Stdout, "%-9s %s\n", action, f.Path)
	}
	verb := "git hook"
	if planned {
		verb = "would git hook"
	}
	for _, st := range steps {
		if st.Changes() || st.Kind == githooks.Conflict || st.Kind == githooks.Managed {
			fmt.Fprintf(a.Stdout, "%s %s: %s\n", verb, st.Hook, st.Kind)
		}
	}
	if o.Check && setupPending(plans, steps) == 0 {
		fmt.Fprintln(a.Stdout, "everything is in place")
	}
	for _, n := range notes {
		fmt.Fprintf(a.Stderr, "note: %s\n", n)
	}
}

// setupGitHooks is `hooks install` (planned only, with dryRun).
func (a *App) setupGitHooks(ctx context.Context, dryRun bool) ([]githooks.Step, error) {
	loc, snap, err := a.readHooks(ctx)
	if err != nil {
		return nil, err
	}
	steps := githooks.PlanInstall(snap, false)
	if dryRun {
		return steps, nil
	}
	if err := githooks.Apply(loc.Dir, steps); err != nil {
		return steps, fmt.Errorf("hooks install in %s: %w", loc.Dir, err)
	}
	return steps, nil
}
