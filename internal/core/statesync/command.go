package statesync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
)

// The `sync` command's own parts: its time limit, --recover, and the
// lines it prints. Values and errors only; the command writes them.

// errTimeout is the cause of a sync's context past its limit: it tells
// the command's own limit from a signal, which cancels the context too.
var errTimeout = errors.New("sync timeout")

// Limit is the whole command's time limit: flag when set, else [github]
// sync_timeout, else its default.
func (s *Syncer) Limit(flag time.Duration) time.Duration {
	if flag > 0 {
		return flag
	}
	return s.Config.Config.GitHub.SyncTimeoutOr()
}

// WithLimit bounds ctx by limit. The returned check turns an error the
// limit caused into the AGENT_ERROR that says what the limit was, where it
// comes from (fromFlag: --timeout) and what is left as it was; other
// errors pass through.
func WithLimit(ctx context.Context, limit time.Duration, remote string, fromFlag bool) (context.Context, context.CancelFunc, func(error) error) {
	tctx, cancel := context.WithTimeoutCause(ctx, limit, errTimeout)
	check := func(err error) error {
		if err != nil && errors.Is(context.Cause(tctx), errTimeout) {
			return timeoutError(limit, remote, fromFlag, err)
		}
		return err
	}
	return tctx, cancel, check
}

// timeoutError is a sync stopped by its own time limit.
func timeoutError(limit time.Duration, remote string, fromFlag bool, cause error) error {
	where := "--timeout or [github] sync_timeout in .agentx/agentx.toml"
	if fromFlag {
		where = "--timeout"
	}
	// A git error's first line says what failed; shorten.Line would fold
	// the rest in.
	first, _, _ := strings.Cut(cause.Error(), "\n")
	return errcode.Wrap(errcode.AgentError, errors.New(first), "sync did not finish within %s", limit).
		WithHint(fmt.Sprintf("check that `git fetch %s` answers (network, credentials, a prompt); raise %s for a large first push; what was merged into .agentx/ stays and the next sync pushes it", remote, where))
}

// CommandOptions is one `sync` command line's choices.
type CommandOptions struct {
	PullOnly, PushOnly bool
	InitFrom           string // a REV whose committed state files seed the sync
	Recover, DryRun    bool
	Since              string        // --recover's history from (clock.ParseWhen)
	Timeout            time.Duration // the whole command's limit (0: Limit's default)
	// Progress follows --recover's reading; Found receives what it found
	// before the sync runs (the command prints it then). Either may be nil.
	Progress func(done, total int)
	Found    func(*statebranch.RecoverResult)
}

// Outcome is what a `sync` command did.
type Outcome struct {
	Merge   *MergeLog
	Recover *statebranch.RecoverResult // with --recover
	Sync    *statebranch.Result        // nil after --recover --dry-run
	// IndexTime is the memory index's share, Took the whole command's.
	IndexTime, Took time.Duration
	// Failure is set when the sync completed but a state file does not
	// parse on one side: the command fails after reporting the rest.
	Failure *errcode.Error
}

// Command runs one `sync` command within its time limit: --recover first
// when asked (and nothing more with DryRun), then the sync.
func (s *Syncer) Command(ctx context.Context, o CommandOptions) (*Outcome, error) {
	start := time.Now()
	opt, mlog, err := s.Options()
	if err != nil {
		return nil, err
	}
	opt.PullOnly, opt.PushOnly, opt.InitFrom = o.PullOnly, o.PushOnly, o.InitFrom
	tctx, cancel, timedOut := WithLimit(ctx, s.Limit(o.Timeout), opt.Remote, o.Timeout > 0)
	defer cancel()
	out := &Outcome{Merge: mlog}
	if o.Recover {
		since, err := clock.ParseWhen(o.Since, s.Clock.Now())
		if err != nil {
			return nil, err
		}
		if out.Recover, err = s.Recover(tctx, opt, since, o.DryRun, o.Progress); err != nil {
			return nil, timedOut(err)
		}
		if o.Found != nil {
			o.Found(out.Recover)
		}
		if o.DryRun {
			out.Took = time.Since(start)
			return out, nil
		}
	}
	if out.Sync, out.IndexTime, err = s.Sync(tctx, opt, ByCommand); err != nil {
		return nil, timedOut(err)
	}
	out.Failure = CorruptFailure(out.Sync)
	out.Took = time.Since(start)
	return out, nil
}

// Recover runs `sync --recover`'s search over the history of the state
// branch (since, when set) and, unless dryRun, writes back what it finds,
// audits the writes and brings the memory index in line with the issue
// files it wrote. The sync that follows pushes it.
func (s *Syncer) Recover(ctx context.Context, opt statebranch.Options, since time.Time, dryRun bool, progress func(done, total int)) (*statebranch.RecoverResult, error) {
	writes := s.newWrites()
	rec, err := statebranch.Recover(ctx, statebranch.RecoverOptions{Root: opt.Root, Branch: opt.Branch,
		Merge: opt.Merge, Valid: opt.Valid, Live: statemerge.Live, Locks: opt.Locks, DryRun: dryRun,
		Since: since, Progress: progress, Wrote: writes.Wrote, Writing: writes.Writing})
	s.AuditWrites(context.WithoutCancel(ctx), writes, "recovered from the history of "+opt.Remote+"/"+opt.Branch)
	if err != nil {
		return rec, err
	}
	var issues []int
	if !dryRun {
		var paths []string
		for _, r := range rec.Recovered {
			paths = append(paths, r.Path)
		}
		issues = MemoryIssues(paths)
	}
	if len(issues) > 0 {
		if err := s.Memory.Reindex(ctx, issues); err != nil {
			return rec, fmt.Errorf("update the memory index after recovery: %w", err)
		}
	}
	return rec, nil
}

// RecoverLines are what --recover found, for people: one line per file
// and a total; warnings name the files that do not parse (nothing was
// recovered into them).
func RecoverLines(rec *statebranch.RecoverResult) (lines, warnings []string) {
	verb := "recovered"
	if rec.DryRun {
		verb = "would recover"
	}
	n := 0
	for _, r := range rec.Recovered {
		n += len(r.IDs)
		lines = append(lines, fmt.Sprintf("%s %d in %s: %s (from %s)", verb, len(r.IDs), r.Path,
			strings.Join(FirstN(r.IDs, 8), ", ")+moreThan(r.IDs, 8), fromLine(r.From)))
	}
	for _, p := range rec.Skipped {
		warnings = append(warnings, p+" does not parse: nothing recovered into it (repair it or move it aside, then run --recover again)")
	}
	lines = append(lines, fmt.Sprintf("recover: read %d commits (%d file versions, %d unparsable) from %d refs and reflogs; %s %d records and observations in %d files",
		rec.Commits, rec.Versions, rec.Unparsable, len(rec.Sources), verb, n, len(rec.Recovered)))
	return lines, warnings
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

// Lines are a finished sync for people (stdout): the summary, the
// merge's notes, a divergence, the renumbered ids. Warnings are the files
// not merged and those that do not parse (stderr).
func Lines(res *statebranch.Result, mlog *MergeLog) (lines, warnings []string) {
	lines = append(lines, Summary(res))
	for _, n := range res.Notes {
		lines = append(lines, "sync: "+n)
	}
	if res.Diverged != nil {
		lines = append(lines, DivergenceLine(res))
	}
	for _, r := range mlog.Renamed {
		lines = append(lines, RenameLine(r))
	}
	for _, c := range res.Conflicts {
		warnings = append(warnings, fmt.Sprintf("not merged, kept locally and not pushed: %s (%s)", c.Path, c.Reason))
	}
	for _, c := range res.Corrupt {
		warnings = append(warnings, CorruptLine(c))
	}
	return lines, warnings
}
