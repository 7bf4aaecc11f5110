// Package statesync owns a workspace's sync with the state branch as the
// commands and hooks run it (GitHub Mode): the options from agentx.toml,
// the semantic merge and what it reports, the audit lines of every local
// file a sync wrote, the memory index brought in line with the memory
// files it wrote (inline, or by a background rebuild after a large pull),
// a hook's fail-open sync within [github] sync_budget, and the lines a
// person or an agent reads about it. The transfer and the merge
// themselves are statebranch's and statemerge's.
package statesync

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/delivery"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Syncer syncs one workspace.
type Syncer struct {
	Workspace workspace.Workspace
	Config    *config.Set
	Locks     *lock.Locker
	Clock     clock.Clock
	// Agent names the commits' author ("agentx (engineer)"); "" for agentx.
	Agent string
	// Issue, when above 0, is the hook's issue: its ledger and memory file
	// are pulled before every other file (OwnIssueFirst).
	Issue int
	// Merge merges a file changed on both sides (nil: the semantic merge,
	// statemerge.MergeFile, whose reports land in the MergeLog).
	Merge statebranch.FileMerger
	// Memory is brought in line with the memory files a sync wrote.
	Memory *memory.Store
	// Index is the background rebuild a hook leaves a large pull's index to.
	Index *IndexRebuild
	// Audit appends one audit line.
	Audit func(ctx context.Context, e audit.Entry)
	// Warn receives what a sync could not do but went on without.
	Warn func(format string, args ...any)
}

// MergeLog collects what the semantic merge reported during one sync.
type MergeLog struct {
	Renamed []statemerge.Rename `json:"renamed"`
	Notes   []string            `json:"notes"`
}

// merger is statemerge.MergeFile recording its reports in l.
func (l *MergeLog) merger() statebranch.FileMerger {
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

// Options reads the [github] settings, refusing Local Mode. The merge is
// s.Merge when set, else the semantic merge, whose reports land in the
// returned log.
func (s *Syncer) Options() (statebranch.Options, *MergeLog, error) {
	mlog := &MergeLog{Renamed: []statemerge.Rename{}, Notes: []string{}}
	if s.Config.Config.Mode != "github" {
		mode := s.Config.Config.Mode
		if mode == "" {
			mode = "local"
		}
		return statebranch.Options{}, mlog, errcode.New(errcode.InvalidInput,
			"sync works in GitHub Mode only; this workspace is in %s mode", mode).
			// init switches the mode line and keeps the state out of code
			// branches (.agentx/.gitignore); the mode line alone would not.
			WithHint("switch with `agentx-hook init --mode github` (it also keeps the state out of code branches), then commit .agentx/agentx.toml and .agentx/.gitignore and run sync")
	}
	gh := s.Config.Config.GitHub
	if gh.Remote == "" {
		gh.Remote = statebranch.DefaultRemote
	}
	if gh.StateBranch == "" {
		gh.StateBranch = statebranch.DefaultBranch
	}
	merge := s.Merge
	if merge == nil {
		merge = mlog.merger()
	}
	author, email := "agentx", "agentx@localhost"
	if s.Agent != "" {
		author = "agentx (" + s.Agent + ")"
	}
	return statebranch.Options{
		Root: s.Workspace.Root, Remote: gh.Remote, Branch: gh.StateBranch,
		Merge: merge, Valid: statemerge.Valid, Lost: statemerge.Lost,
		Locks: s.Locks, Author: author, Email: email, Now: s.Clock.Now,
		First: OwnIssueFirst(s.Issue),
	}, mlog, nil
}

// OwnIssueFirst is statebranch.Options.First for a hook of issue: its
// ledger and its memory issue file (nil for no issue).
func OwnIssueFirst(issue int) func(rel string) bool {
	if issue <= 0 {
		return nil
	}
	name := "issue-" + strconv.Itoa(issue) + ".json"
	ledger, mem := "state/clarifications/"+name, "memory/"+name
	return func(rel string) bool { return rel == ledger || rel == mem }
}

// Mode says who runs a sync, and so who brings the memory index in line
// with the memory files it wrote.
type Mode int

const (
	ByCommand   Mode = iota // `sync`: the index now, inline
	InHook                  // a hook: inline for a few files, else in the background
	ThenRebuild             // the background rebuild's pull: its rebuild follows
)

// errHookBudget is the cause of a hook's sync context past its share of
// sync_budget.
var errHookBudget = errors.New("sync budget spent")

// BudgetError is a hook's sync stopped by its budget: after the fetch
// (Fetched), having written some files, or before the remote answered.
type BudgetError struct {
	Err     error
	Fetched bool
	Written int
}

func (e *BudgetError) Error() string { return e.Err.Error() }
func (e *BudgetError) Unwrap() error { return e.Err }

// Sync runs a sync and brings the memory index in line with the memory
// files it wrote: the manifest and search index are derived and never
// travel on the branch. In a hook (InHook) a pull that wrote many memory
// files, or that spent the budget, leaves the index to a background
// rebuild instead of overrunning sync_budget; that rebuild, completing a
// pull first (ThenRebuild), leaves it to itself. It returns the time the
// index took.
func (s *Syncer) Sync(ctx context.Context, opt statebranch.Options, mode Mode) (*statebranch.Result, time.Duration, error) {
	inHook := mode == InHook
	writes := s.newWrites()
	opt.Wrote, opt.Writing = writes.Wrote, writes.Writing
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
		be := &BudgetError{Err: err}
		if res != nil {
			be.Fetched, be.Written = res.Fetches > 0 && res.RemoteExists, len(res.Written)
		}
		err = be
	}
	// What was written stays written even when the sync then failed or ran
	// out of its budget: its audit lines are appended regardless.
	detail := fmt.Sprintf("merged from %s/%s", opt.Remote, opt.Branch)
	if opt.InitFrom != "" {
		detail = fmt.Sprintf("seeded from %s and merged from %s/%s", opt.InitFrom, opt.Remote, opt.Branch)
	}
	s.AuditWrites(context.WithoutCancel(ctx), writes, detail)
	if res == nil {
		return nil, 0, err
	}
	if LedgersWritten(res.Written, res.Seeded) {
		// An answer another clone wrote is news to this clone's running
		// sessions: their next mid-session hook looks (issue 34).
		if berr := delivery.Bump(s.Workspace); berr != nil {
			s.warn("answers pulled from the state branch wait for the next session: %v", berr)
		}
	}
	issues := MemoryIssues(res.Written, res.Seeded)
	switch {
	case len(issues) == 0 || mode == ThenRebuild:
	case inHook && (len(issues) > HookReindexMax || sctx.Err() != nil || s.Index.Running()):
		// A rebuild already running may have read the files before this
		// pull wrote them: a new one queues behind it.
		var be *BudgetError
		if rerr := s.Index.Start(errors.As(err, &be) && be.Fetched); rerr != nil {
			s.warn("memory index not updated after the state pull (run `agentx-hook memory rebuild`): %v", rerr)
		}
	default:
		start := time.Now()
		if rerr := s.Memory.Reindex(ctx, issues); rerr != nil {
			err = errors.Join(err, fmt.Errorf("update the memory index after sync: %w", rerr))
		}
		return res, time.Since(start), err
	}
	return res, 0, err
}

// newWrites collects a sync's (or a recovery's) local writes, marking the
// memory issue files among them when there is a trail to owe lines to.
func (s *Syncer) newWrites() *Writes {
	w := &Writes{}
	if s.Memory != nil && s.Audit != nil {
		w.Mark, w.Unmark = s.Memory.MarkWrite, s.Memory.ClearMark
	}
	return w
}

// AuditWrites appends the audit lines of what a sync wrote locally.
func (s *Syncer) AuditWrites(ctx context.Context, w *Writes, detail string) {
	defer w.unmark() // the lines their markers carry are appended
	if s.Audit == nil {
		return
	}
	for _, e := range w.Entries(detail) {
		s.Audit(ctx, e)
	}
}

// Hook is a hook's sync: in GitHub Mode a pull (fetch and merge) or a
// whole sync (fetch, merge, commit, push) within budget (<= 0: [github]
// sync_budget, else 3s). It fails open: when the network, the remote or
// anything else is in the way it warns once and returns, and the next
// sync catches up. Outside GitHub Mode it does nothing. It returns the
// clarification ids the merge renumbered, which hook start tells the
// agent.
func (s *Syncer) Hook(ctx context.Context, budget time.Duration, pull bool) []statemerge.Rename {
	if s.Config.Config.Mode != "github" {
		return nil
	}
	if budget <= 0 {
		budget = s.Config.Config.GitHub.SyncBudget.Duration
	}
	if budget <= 0 {
		budget = statebranch.DefaultBudget
	}
	opt, mlog, err := s.Options()
	if err != nil {
		s.warn("state branch sync skipped: %v", err)
		return nil
	}
	opt.PullOnly = pull
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	res, _, err := s.Sync(ctx, opt, InHook)
	var be *BudgetError
	switch {
	case errcode.Is(err, errcode.LockTimeout):
		// Another sync of this clone holds the state branch (the
		// background pull after a fresh clone's first hook, a person's
		// sync): it brings what this one would.
		s.warn("state branch sync skipped: another sync of this clone is running (%s); the next sync catches up", firstLine(err.Error()))
	case errors.As(err, &be) && be.Fetched:
		s.warn("state branch sync not finished within %s (%d local files updated so far); the next hook or `agentx-hook sync` completes it", budget, be.Written)
	case err != nil && (ctx.Err() != nil || be != nil):
		s.warn("state branch sync skipped: no answer from %s within %s; the next sync catches up", opt.Remote, budget)
	case err != nil:
		s.warn("state branch sync skipped: %s; the next sync catches up", firstLine(err.Error()))
	case len(res.Corrupt) > 0:
		s.warn("state branch: %s (run `agentx-hook sync` for details)", CorruptFailure(res).Message)
	case len(res.Conflicts) > 0:
		s.warn("state branch: %d files changed on both sides could not be merged and were kept locally (run `agentx-hook sync`)", len(res.Conflicts))
	}
	if res != nil && res.Diverged != nil {
		s.warn("%s", DivergenceLine(res))
	}
	if res != nil {
		for _, n := range res.Notes {
			s.warn("state branch: %s", n)
		}
	}
	for _, r := range mlog.Renamed {
		s.warn("%s", RenameLine(r))
	}
	return mlog.Renamed
}

// PullBeforeRebuild completes a state pull a hook's budget cut short,
// within [github] sync_timeout; the rebuild that follows indexes it all.
// It returns the sync's summary line ("" when it did not complete).
func (s *Syncer) PullBeforeRebuild(ctx context.Context) string {
	opt, _, err := s.Options()
	if err != nil {
		s.warn("state pull skipped: %v", err)
		return ""
	}
	opt.PullOnly = true
	ctx, cancel := context.WithTimeout(ctx, s.Config.Config.GitHub.SyncTimeoutOr())
	defer cancel()
	res, _, err := s.Sync(ctx, opt, ThenRebuild)
	if err != nil {
		s.warn("state pull not completed: %v", err)
		return ""
	}
	return Summary(res)
}

func (s *Syncer) warn(format string, args ...any) {
	if s.Warn != nil {
		s.Warn(format, args...)
	}
}
