package hookcmd

import (
	"context"
	"fmt"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/initws"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
	"github.com/agentx-dev/agentx/internal/core/statesync"
)

const syncUsage = `sync [--pull-only | --push-only] [--init-from REV] [--timeout DURATION] [--json]
       agentx-hook sync --recover [--since DATE|DURATION] [--dry-run] [--json]

In GitHub Mode (mode = "github" in .agentx/agentx.toml) the shared state
(clarification ledgers, memory issue files and archive) lives on one branch,
[github] state_branch (default agentx/state) on [github] remote (default
origin), never on code branches. sync fetches that branch, merges it three
ways with the files under .agentx/ against the last synchronised base
(refs/agentx/synced), writes the merged files, commits the merged tree on
the branch and pushes it; a push that loses a race is merged again.
Your index, work tree, HEAD, branches and stash are never touched; fetch and
push run your git, with the credentials it already has.

Files changed on both sides are merged by meaning (docs/merge.md): records
by id, thread entries as a set, status by lifecycle precedence; when both
sides allocated the same clarification id, one record is renumbered and the
renaming is printed. A file that cannot be merged (it does not parse) is
reported, kept as it is locally and not pushed until it is repaired.

A file missing locally (a fresh clone, git clean -xfd, a new worktree) is
restored from the branch; nothing leaves the shared state unless a command
that removes it (memory remove, memory compact) left a tombstone saying so.
A branch that was force-pushed, deleted or renamed is merged as a union and
the union pushed back. A file that does not parse is never pushed nor
copied over a valid one; sync names it and exits 1. After a clean sync, a
file rewritten in place by hand (no rename, no lock) is seen by the first
sync 5 minutes on or by one with other work (docs/merge.md); verify sees
it at once.

--recover reads the state branch's history, the reflogs of its
remote-tracking ref, the sync bases and the checkpoints, lists every record
and observation they hold that is missing now without a tombstone, brings
them back into the local files and syncs (--dry-run: lists only; --since
limits the history read).
  agentx-hook sync --recover --dry-run

--init-from REV moves a repository whose ledgers are committed on a code
branch: the state files committed in REV (a branch, tag, HEAD or full hash)
are merged into the local ones first, then synced. Nothing is lost. The
state files the code branch still tracks are then named, with the git rm
--cached command that stops tracking them (they stay on disk).
  agentx-hook sync --init-from HEAD

--timeout bounds the whole command (fetch, merge, push, retries, --recover),
default [github] sync_timeout, else 2m: past it git is stopped with
everything it started, and sync fails with AGENT_ERROR. What was merged
into .agentx/ by then stays; the next sync pushes it.`

// syncOptions is one `sync` command line.
type syncOptions struct {
	PullOnly, PushOnly bool
	InitFrom           string // REV whose committed state files seed the sync
	Recover, DryRun    bool
	Since              string
	Timeout            time.Duration // --timeout (0: [github] sync_timeout, else 2m)
	jsonFlag
	// printed: the sync document is out, so a failure after it (a file
	// that does not parse) must not print a second one.
	printed bool
}

func (o *syncOptions) jsonMode() bool { return o.JSON && !o.printed }

func parseSync(a *App, args []string) (*syncOptions, error) {
	o := &syncOptions{}
	flags := newFlags(a, "sync", syncUsage)
	flags.BoolVar(&o.PullOnly, "pull-only", false, "fetch and merge into .agentx/, commit and push nothing")
	flags.BoolVar(&o.PushOnly, "push-only", false, "do not fetch first (a refused push still fetches and merges)")
	flags.StringVar(&o.InitFrom, "init-from", "", "first merge the state files committed in `REV` (migration)")
	flags.BoolVar(&o.Recover, "recover", false, "bring back what the history holds and the state lacks without a tombstone, then sync")
	flags.BoolVar(&o.DryRun, "dry-run", false, "with --recover: list what would come back, change nothing")
	flags.StringVar(&o.Since, "since", "", "with --recover: read commits since `DATE` (ISO 8601) or DURATION (7d, 12h)")
	flags.DurationVar(&o.Timeout, "timeout", 0, "the whole sync's time `limit` (default: [github] sync_timeout, else 2m)")
	o.register(flags)
	err := parseFlagsOnly(flags, args)
	switch {
	case err != nil:
	case o.PullOnly && o.PushOnly:
		err = usagef("--pull-only and --push-only exclude each other")
	case o.PullOnly && o.InitFrom != "":
		err = usagef("--init-from pushes the seeded state; it cannot be combined with --pull-only")
	case (o.DryRun || o.Since != "") && !o.Recover:
		err = usagef("--dry-run and --since go with --recover")
	case o.Recover && (o.PullOnly || o.PushOnly || o.InitFrom != ""):
		err = usagef("--recover runs a whole sync after it; it cannot be combined with --pull-only, --push-only or --init-from")
	case o.Timeout < 0:
		err = usagef("--timeout must be positive (got %s)", o.Timeout)
	}
	return o, err
}

func runSync(ctx context.Context, a *App, o *syncOptions) error {
	syncer, err := a.stateSyncer()
	if err != nil {
		return err
	}
	co := statesync.CommandOptions{PullOnly: o.PullOnly, PushOnly: o.PushOnly, InitFrom: o.InitFrom,
		Recover: o.Recover, DryRun: o.DryRun, Since: o.Since, Timeout: o.Timeout}
	if !o.JSON {
		co.Found = func(rec *statebranch.RecoverResult) { a.printLines(statesync.RecoverLines(rec)) }
		if a.StderrTTY {
			co.Progress = func(done, total int) {
				fmt.Fprintf(a.Stderr, "\rrecover: %d/%d files", done, total)
				if done == total {
					fmt.Fprintln(a.Stderr)
				}
			}
		}
	}
	out, err := syncer.Command(ctx, co)
	if err != nil {
		return err
	}
	// A migration (--init-from) leaves the state files tracked on the code
	// branch: they are named with the commands that stop tracking them.
	var tracked initws.Tracked
	if o.InitFrom != "" && out.Sync != nil {
		tracked = initws.FindTracked(ctx, a.Workspace().Root)
	}
	if o.JSON {
		o.printed = out.Sync != nil
		if err := a.writeDoc(out.Doc(tracked)); err != nil {
			return err
		}
		return nilIfNone(out.Failure)
	}
	if out.Sync != nil {
		a.printLines(statesync.Lines(out.Sync, out.Merge))
	}
	a.printLines(tracked.Lines(false), nil)
	return nilIfNone(out.Failure)
}

// printLines prints lines on stdout and warnings as warnings (stderr).
func (a *App) printLines(lines, warnings []string) {
	for _, line := range lines {
		fmt.Fprintln(a.Stdout, line)
	}
	for _, w := range warnings {
		a.warn("%s", w)
	}
}

// nilIfNone keeps a nil *errcode.Error from becoming a non-nil error.
func nilIfNone(e *errcode.Error) error {
	if e == nil {
		return nil
	}
	return e
}

// stateSyncer wires the state-branch sync to this workspace.
func (a *App) stateSyncer() (*statesync.Syncer, error) {
	cfg, err := a.Config()
	if err != nil {
		return nil, err
	}
	return &statesync.Syncer{
		Workspace: a.Workspace(), Config: cfg, Locks: a.Locks(), Clock: a.Clock,
		Agent: a.Getenv("AGENTX_AGENT"), Issue: a.hookIssue, Merge: a.Merge, Memory: a.Memory(),
		Index: a.indexRebuild(), Audit: a.auditAppend, Warn: a.warn,
	}, nil
}

// StatePull is what `hook start` calls: in GitHub Mode it fetches the
// state branch and merges it into .agentx/ within budget (<= 0: [github]
// sync_budget, else 3s), failing open (statesync.Syncer.Hook).
func (a *App) StatePull(ctx context.Context, budget time.Duration) []statemerge.Rename {
	return a.stateSyncHook(ctx, budget, true)
}

// StatePush is what `hook finish` calls: in GitHub Mode a full sync
// (fetch, merge, commit, push) within budget, failing open like StatePull.
// It fetches first because a push must be a fast-forward: pushing blind
// would cost a refused push and a fetch whenever another agent synced.
func (a *App) StatePush(ctx context.Context, budget time.Duration) {
	a.stateSyncHook(ctx, budget, false)
}

func (a *App) stateSyncHook(ctx context.Context, budget time.Duration, pull bool) []statemerge.Rename {
	s, err := a.stateSyncer()
	if err != nil {
		return nil // a configuration that does not load: not GitHub Mode
	}
	return s.Hook(ctx, budget, pull)
}
