package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
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
copied over a valid one; sync names it and exits 1.

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

// mergeLog collects what the semantic merge reported during one sync.
type mergeLog struct {
	Renamed []statemerge.Rename `json:"renamed"`
	Notes   []string            `json:"notes"`
}

// merger is statemerge.MergeFile recording its reports in l.
func (l *mergeLog) merger() statebranch.FileMerger {
	return func(path string, base, ours, theirs []byte) ([]byte, error) {
		merged, rep, err := statemerge.MergeFile(path, base, ours, theirs)
		if err != nil {
			return nil, err
		}
		l.Renamed = append(l.Renamed, rep.Renamed...)
		for _, n := range rep.Notes {
			l.Notes = append(l.Notes, path+": "+n)
		}
		return merged, nil
	}
}

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
	pos, err := parse(flags, args)
	switch {
	case err != nil:
	case len(pos) > 0:
		err = usagef("sync takes no arguments (got %q)", pos[0])
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

type syncDoc struct {
	DurationMs int64 `json:"duration_ms"`
	// Recover is what --recover found (and brought back).
	Recover       *statebranch.RecoverResult `json:"recover,omitempty"`
	MemoryIndexMs int64                      `json:"memory_index_ms"`
	Merge         *mergeLog                  `json:"merge"`
	schemaVersion
	Sync *statebranch.Result `json:"sync"`
	// Error is set when the sync completed but a state file does not
	// parse on one side (exit 1).
	Error *errorBody `json:"error,omitempty"`
	// TrackedState and Untrack: after --init-from, the state files the
	// code branch still tracks and the commands that stop tracking them.
	TrackedState []string `json:"trackedState,omitempty"`
	Untrack      []string `json:"untrack,omitempty"`
}

func runSync(ctx context.Context, a *App, o *syncOptions) error {
	opt, mlog, err := a.stateSyncOptions()
	if err != nil {
		return err
	}
	opt.PullOnly, opt.PushOnly, opt.InitFrom = o.PullOnly, o.PushOnly, o.InitFrom
	limit := o.Timeout
	if limit == 0 {
		cfg, _ := a.Config() // loaded by stateSyncOptions just above
		limit = cfg.Config.GitHub.SyncTimeoutOr()
	}
	start := time.Now()
	// The cause tells our own limit from a signal (which cancels ctx too).
	tctx, cancel := context.WithTimeoutCause(ctx, limit, errSyncTimeout)
	defer cancel()
	timedOut := func(err error) error {
		if err != nil && errors.Is(context.Cause(tctx), errSyncTimeout) {
			return syncTimeoutError(limit, opt.Remote, o.Timeout > 0, err)
		}
		return err
	}
	var rec *statebranch.RecoverResult
	if o.Recover {
		if rec, err = a.recoverState(tctx, opt, o); err != nil {
			return timedOut(err)
		}
		if o.DryRun {
			if o.JSON {
				return a.writeDoc(&syncDoc{Recover: rec, Merge: mlog, DurationMs: time.Since(start).Milliseconds()})
			}
			return nil
		}
	}
	res, indexTime, err := a.syncState(tctx, opt, syncCommand)
	if err != nil {
		return timedOut(err)
	}
	failure := corruptFailure(res)
	// A migration (--init-from) leaves the state files tracked on the code
	// branch: they are named with the commands that stop tracking them.
	var tracked []string
	if o.InitFrom != "" {
		tracked = trackedStateFiles(ctx, a.Workspace().Root)
	}
	if o.JSON {
		doc := &syncDoc{Sync: res, Merge: mlog, Recover: rec, TrackedState: tracked,
			MemoryIndexMs: indexTime.Milliseconds(), DurationMs: time.Since(start).Milliseconds()}
		if len(tracked) > 0 {
			doc.Untrack = untrackCommands()
		}
		if failure != nil {
			doc.Error = &errorBody{Code: string(failure.Code), Message: failure.Message, Hint: failure.Hint}
		}
		o.printed = true
		if err := a.writeDoc(doc); err != nil {
			return err
		}
		return nilIfNone(failure)
	}
	fmt.Fprintln(a.Stdout, syncSummary(res))
	for _, n := range res.Notes {
		fmt.Fprintln(a.Stdout, "sync: "+n)
	}
	if d := res.Diverged; d != nil {
		fmt.Fprintln(a.Stdout, divergenceLine(res))
	}
	for _, r := range mlog.Renamed {
		fmt.Fprintln(a.Stdout, renameLine(r))
	}
	for _, c := range res.Conflicts {
		a.warn("not merged, kept locally and not pushed: %s (%s)", c.Path, c.Reason)
	}
	for _, c := range res.Corrupt {
		a.warn("%s", corruptLine(c))
	}
	printTrackedState(a, tracked, false)
	return nilIfNone(failure)
}

// errHookBudget is the cause of a hook's sync context past its share of
// sync_budget.
var errHookBudget = errors.New("sync budget spent")

// budgetError is a hook's sync stopped by its budget: after the fetch
// (fetched), having written some files, or before the remote answered.
type budgetError struct {
	err     error
	fetched bool
	written int
}

func (e *budgetError) Error() string { return e.err.Error() }
func (e *budgetError) Unwrap() error { return e.err }

// errSyncTimeout is the cause of a sync's context past its --timeout.
var errSyncTimeout = errors.New("sync timeout")

// syncTimeoutError is a sync stopped by its own time limit: what the limit
// was, where it comes from, and what is left as it was.
func syncTimeoutError(limit time.Duration, remote string, fromFlag bool, cause error) error {
	where := "--timeout or [github] sync_timeout in .agentx/agentx.toml"
	if fromFlag {
		where = "--timeout"
	}
	return errcode.Wrap(errcode.AgentError, errors.New(firstLine(cause.Error())),
		"sync did not finish within %s", limit).
		WithHint(fmt.Sprintf("check that `git fetch %s` answers (network, credentials, a prompt); raise %s for a large first push; what was merged into .agentx/ stays and the next sync pushes it", remote, where))
}

// nilIfNone keeps a nil *errcode.Error from becoming a non-nil error.
func nilIfNone(e *errcode.Error) error {
	if e == nil {
		return nil
	}
	return e
}

// renameLine tells the agent holding a renumbered id its new one.
func renameLine(r statemerge.Rename) string {
	return fmt.Sprintf("renumbered %s to %s on issue %d: another clone had allocated the id first; use %s from now on (the record keeps renamedFrom, and `agentx-hook audit --id %s` follows it)",
		r.From, r.To, r.Issue, r.To, r.To)
}

// divergenceLine says, once, that the remote history was not the one
// this clone synchronised with, and what the union kept.
func divergenceLine(res *statebranch.Result) string {
	d := res.Diverged
	kept := "nothing was missing from it"
	if n := len(d.Kept); n > 0 {
		kept = fmt.Sprintf("pushed back %d files it lacked or held less of: %s", n, strings.Join(firstN(d.Kept, 5), ", "))
		if n > 5 {
			kept += fmt.Sprintf(" and %d more (--json lists them)", n-5)
		}
	}
	switch d.Reason {
	case "gone":
		return fmt.Sprintf("sync: %s has no %s although this clone synchronised with it (deleted, or a new remote or state_branch): nothing was removed here; %s",
			res.Remote, res.Branch, kept)
	default:
		return fmt.Sprintf("sync: %s/%s was rewritten (its tip %s does not descend from the last sync %s: a force-push, a recreated or renamed branch, or another remote): merged as a union, nothing removed; %s",
			res.Remote, res.Branch, shorten.Runes(d.Tip, 10), shorten.Runes(d.Base, 10), kept)
	}
}

func firstN(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

// corruptLine names a state file that does not parse and what was kept.
func corruptLine(c statebranch.Corrupt) string {
	if c.Side == "local" {
		return fmt.Sprintf("%s does not parse here: kept as it is and not pushed; the branch keeps its copy (%s). Repair it, or move it aside and sync again to restore the branch's copy",
			c.Path, c.Reason)
	}
	return fmt.Sprintf("%s does not parse on the state branch (commit %s): the local copy was kept and the branch's replaced with the merge of the copies that parse (%s)",
		c.Path, shorten.Runes(c.Commit, 10), c.Reason)
}

// corruptFailure is the error a sync that met unparsable files ends with,
// after everything else was synchronised; nil when it met none.
func corruptFailure(res *statebranch.Result) *errcode.Error {
	if res == nil || len(res.Corrupt) == 0 {
		return nil
	}
	paths := make([]string, len(res.Corrupt))
	for i, c := range res.Corrupt {
		paths[i] = c.Side + " " + c.Path
	}
	return errcode.New(errcode.CorruptState, "%d state files do not parse: %s; nothing unparsable was pushed or copied over a valid file",
		len(res.Corrupt), strings.Join(paths, ", ")).
		WithHint("repair the local file or move it aside (the next sync restores the branch's copy); `agentx-hook verify` shows where it breaks")
}

// stateSyncOptions reads the [github] settings, refusing Local Mode. The
// merge is a.Merge when set (tests), else the semantic merge, whose
// reports land in the returned log.
func (a *App) stateSyncOptions() (statebranch.Options, *mergeLog, error) {
	mlog := &mergeLog{Renamed: []statemerge.Rename{}, Notes: []string{}}
	cfg, err := a.Config()
	if err != nil {
		return statebranch.Options{}, mlog, err
	}
	if cfg.Config.Mode != "github" {
		mode := cfg.Config.Mode
		if mode == "" {
			mode = "local"
		}
		return statebranch.Options{}, mlog, errcode.New(errcode.InvalidInput,
			"sync works in GitHub Mode only; this workspace is in %s mode", mode).
			WithHint(`set mode = "github" in .agentx/agentx.toml to share the state on the state branch`)
	}
	gh := cfg.Config.GitHub
	if gh.Remote == "" {
		gh.Remote = statebranch.DefaultRemote
	}
	if gh.StateBranch == "" {
		gh.StateBranch = statebranch.DefaultBranch
	}
	merge := a.Merge
	if merge == nil {
		merge = mlog.merger()
	}
	author, email := "agentx", "agentx@localhost"
	if agent := a.Getenv("AGENTX_AGENT"); agent != "" {
		author = "agentx (" + agent + ")"
	}
	return statebranch.Options{
		Root: a.Workspace().Root, Remote: gh.Remote, Branch: gh.StateBranch,
		Merge: merge, Valid: statemerge.Valid, Lost: statemerge.Lost,
		Locks: a.Locks(), Author: author, Email: email, Now: a.Clock.Now,
	}, mlog, nil
}

// syncMode says who runs a sync, and so who brings the memory index in
// line with the memory files it wrote.
type syncMode int

const (
	syncCommand     syncMode = iota // `sync`: the index now, inline
	syncInHook                      // a hook: inline for a few files, else in the background
	syncThenRebuild                 // the background rebuild's pull: its rebuild follows
)

// syncState runs a sync and brings the memory index in line with the
// memory files it wrote: the manifest and search index are derived and
// never travel on the branch. In a hook (syncInHook) a pull that wrote
// many memory files, or that spent the budget, leaves the index to a
// background rebuild (indexbg.go) instead of overrunning sync_budget;
// that rebuild, completing a pull first (syncThenRebuild), leaves it to
// itself. It returns the time the index took.
func (a *App) syncState(ctx context.Context, opt statebranch.Options, mode syncMode) (*statebranch.Result, time.Duration, error) {
	inHook := mode == syncInHook
	writes := &syncWrites{}
	opt.Wrote = writes.wrote
	sctx := ctx
	if deadline, ok := ctx.Deadline(); ok && inHook {
		// The budget covers what follows the transfer and merge too: the
		// audit lines of every file written (a second of hashing after a
		// fresh clone's first pull) and starting the index rebuild. A
		// quarter of it is kept for them.
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadlineCause(ctx, deadline.Add(-time.Until(deadline)/4), errHookBudget)
		defer cancel()
	}
	res, err := statebranch.Sync(sctx, opt)
	if err != nil && sctx.Err() != nil {
		be := &budgetError{err: err}
		if res != nil {
			be.fetched, be.written = res.Fetches > 0 && res.RemoteExists, len(res.Written)
		}
		err = be
	}
	// What was written stays written even when the sync then failed or ran
	// out of its budget: its audit lines are appended regardless.
	detail := fmt.Sprintf("merged from %s/%s", opt.Remote, opt.Branch)
	if opt.InitFrom != "" {
		detail = fmt.Sprintf("seeded from %s and merged from %s/%s", opt.InitFrom, opt.Remote, opt.Branch)
	}
	a.auditSync(context.WithoutCancel(ctx), writes, detail)
	var took time.Duration
	if res != nil {
		issues := memoryIssues(res)
		switch {
		case len(issues) == 0 || mode == syncThenRebuild:
		case inHook && (len(issues) > hookReindexMax || sctx.Err() != nil || a.indexMarkerExists()):
			// A rebuild already running may have read the files before
			// this pull wrote them: a new one queues behind it.
			var be *budgetError
			if rerr := a.startIndexRebuild(errors.As(err, &be) && be.fetched); rerr != nil {
				a.warn("memory index not updated after the state pull (run `agentx-hook memory rebuild`): %v", rerr)
			}
		default:
			start := time.Now()
			if rerr := a.Memory().Reindex(ctx, issues); rerr != nil {
				err = errors.Join(err, fmt.Errorf("update the memory index after sync: %w", rerr))
			}
			took = time.Since(start)
		}
	}
	return res, took, err
}

// memoryIssues lists the issues whose memory file the sync wrote.
func memoryIssues(res *statebranch.Result) []int { return memoryIssuesOf(res.Written, res.Seeded) }

// memoryIssuesOf lists the issues of the memory issue files among lists
// of paths relative to .agentx/.
func memoryIssuesOf(lists ...[]string) []int {
	var out []int
	for _, list := range lists {
		for _, p := range list {
			name, ok := strings.CutPrefix(p, "memory/")
			if !ok {
				continue
			}
			if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "issue-"), ".json")); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// syncSummary is the one line a person reads after a sync.
func syncSummary(res *statebranch.Result) string {
	var parts []string
	switch {
	case res.Fetches == 0:
		parts = append(parts, "not fetched")
	case !res.RemoteExists:
		parts = append(parts, fmt.Sprintf("fetched (%s has no %s yet)", res.Remote, res.Branch))
	default:
		parts = append(parts, "fetched")
	}
	if len(res.Seeded) > 0 {
		parts = append(parts, fmt.Sprintf("seeded %d files", len(res.Seeded)))
	}
	parts = append(parts, fmt.Sprintf("merged %d files", len(res.Merged)), fmt.Sprintf("updated %d local files", len(res.Written)))
	if n := len(res.Restored); n > 0 {
		parts = append(parts, fmt.Sprintf("restored %d missing local files from the branch", n))
	}
	if n := len(res.Corrupt); n > 0 {
		parts = append(parts, fmt.Sprintf("%d do not parse", n))
	}
	if len(res.Conflicts) > 0 {
		parts = append(parts, fmt.Sprintf("%d not merged", len(res.Conflicts)))
	}
	switch {
	case res.Pushed && res.Created:
		parts = append(parts, fmt.Sprintf("created %s at %s and pushed", res.Branch, shorten.Runes(res.Commit, 10)))
	case res.Pushed:
		parts = append(parts, fmt.Sprintf("committed %s and pushed", shorten.Runes(res.Commit, 10)))
	default:
		parts = append(parts, "nothing to push")
	}
	if res.Retries > 0 {
		parts = append(parts, fmt.Sprintf("after %d lost push races", res.Retries))
	}
	return "sync: " + strings.Join(parts, ", ")
}

// StatePull is what `hook start` calls: in GitHub Mode it fetches the
// state branch and merges it into .agentx/ within budget (<= 0: [github]
// sync_budget, else 3s). It fails open: when the network, the remote or
// anything else is in the way it prints one warning line and returns, and
// the next sync catches up. Outside GitHub Mode it does nothing.
func (a *App) StatePull(ctx context.Context, budget time.Duration) {
	a.stateSyncHook(ctx, budget, true)
}

// StatePush is what `hook finish` calls: in GitHub Mode a full sync
// (fetch, merge, commit, push) within budget, failing open like StatePull.
// It fetches first because a push must be a fast-forward: pushing blind
// would cost a refused push and a fetch whenever another agent synced.
func (a *App) StatePush(ctx context.Context, budget time.Duration) {
	a.stateSyncHook(ctx, budget, false)
}

// stateSyncHook is a hook's sync (pull: fetch and merge only). It returns
// the clarification ids the merge renumbered, which hook start tells the
// agent.
func (a *App) stateSyncHook(ctx context.Context, budget time.Duration, pull bool) []statemerge.Rename {
	cfg, err := a.Config()
	if err != nil || cfg.Config.Mode != "github" {
		return nil
	}
	if budget <= 0 {
		budget = cfg.Config.GitHub.SyncBudget.Duration
	}
	if budget <= 0 {
		budget = statebranch.DefaultBudget
	}
	opt, mlog, err := a.stateSyncOptions()
	if err != nil {
		a.warn("state branch sync skipped: %v", err)
		return nil
	}
	opt.PullOnly = pull
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	res, _, err := a.syncState(ctx, opt, syncInHook)
	var be *budgetError
	switch {
	case errcode.Is(err, errcode.LockTimeout):
		// Another sync of this clone holds the state branch (the
		// background pull after a fresh clone's first hook, a person's
		// sync): it brings what this one would.
		a.warn("state branch sync skipped: another sync of this clone is running (%s); the next sync catches up", firstLine(err.Error()))
	case errors.As(err, &be) && be.fetched:
		a.warn("state branch sync not finished within %s (%d local files updated so far); the next hook or `agentx-hook sync` completes it", budget, be.written)
	case err != nil && (ctx.Err() != nil || be != nil):
		a.warn("state branch sync skipped: no answer from %s within %s; the next sync catches up", opt.Remote, budget)
	case err != nil:
		a.warn("state branch sync skipped: %s; the next sync catches up", firstLine(err.Error()))
	case len(res.Corrupt) > 0:
		a.warn("state branch: %s (run `agentx-hook sync` for details)", corruptFailure(res).Message)
	case len(res.Conflicts) > 0:
		a.warn("state branch: %d files changed on both sides could not be merged and were kept locally (run `agentx-hook sync`)", len(res.Conflicts))
	}
	if res != nil && res.Diverged != nil {
		a.warn("%s", divergenceLine(res))
	}
	if res != nil {
		for _, n := range res.Notes {
			a.warn("state branch: %s", n)
		}
	}
	for _, r := range mlog.Renamed {
		a.warn("%s", renameLine(r))
	}
	return mlog.Renamed
}

// firstLine is s up to its first newline (shorten.Line would fold the
// rest in; a git error's first line is the one that says what failed).
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// recoverState runs the --recover search, printing what it finds (unless
// --json) and writing it back (unless --dry-run); the sync that follows
// pushes it.
func (a *App) recoverState(ctx context.Context, opt statebranch.Options, o *syncOptions) (*statebranch.RecoverResult, error) {
	ropt := statebranch.RecoverOptions{Root: opt.Root, Branch: opt.Branch,
		Merge: opt.Merge, Valid: opt.Valid, Live: statemerge.Live, Locks: opt.Locks, DryRun: o.DryRun}
	if o.Since != "" {
		t, err := parseWhen(a, o.Since)
		if err != nil {
			return nil, err
		}
		ropt.Since = t
	}
	if !o.JSON && a.StderrTTY {
		ropt.Progress = func(done, total int) {
			fmt.Fprintf(a.Stderr, "\rrecover: %d/%d files", done, total)
			if done == total {
				fmt.Fprintln(a.Stderr)
			}
		}
	}
	writes := &syncWrites{}
	ropt.Wrote = writes.wrote
	rec, err := statebranch.Recover(ctx, ropt)
	a.auditSync(context.WithoutCancel(ctx), writes, "recovered from the history of "+opt.Remote+"/"+opt.Branch)
	if err != nil {
		return rec, err
	}
	var issues []int
	if !o.DryRun {
		var paths []string
		for _, r := range rec.Recovered {
			paths = append(paths, r.Path)
		}
		issues = memoryIssuesOf(paths)
	}
	if len(issues) > 0 {
		if err := a.Memory().Reindex(ctx, issues); err != nil {
			return rec, fmt.Errorf("update the memory index after recovery: %w", err)
		}
	}
	if !o.JSON {
		printRecovered(a, rec)
	}
	return rec, nil
}

func printRecovered(a *App, rec *statebranch.RecoverResult) {
	verb := "recovered"
	if rec.DryRun {
		verb = "would recover"
	}
	n := 0
	for _, r := range rec.Recovered {
		n += len(r.IDs)
		fmt.Fprintf(a.Stdout, "%s %d in %s: %s (from %s)\n", verb, len(r.IDs), r.Path,
			strings.Join(firstN(r.IDs, 8), ", ")+moreThan(r.IDs, 8), fromLine(r.From))
	}
	for _, p := range rec.Skipped {
		a.warn("%s does not parse: nothing recovered into it (repair it or move it aside, then run --recover again)", p)
	}
	fmt.Fprintf(a.Stdout, "recover: read %d commits (%d file versions, %d unparsable) from %d refs and reflogs; %s %d records and observations in %d files\n",
		rec.Commits, rec.Versions, rec.Unparsable, len(rec.Sources), verb, n, len(rec.Recovered))
}

func moreThan(list []string, n int) string {
	if len(list) > n {
		return fmt.Sprintf(" and %d more", len(list)-n)
	}
	return ""
}

func fromLine(commits []string) string {
	if len(commits) == 0 {
		return "the history"
	}
	return shorten.Runes(commits[0], 10) + moreThan(commits, 1)
}
