package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/checkpoint"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

const checkpointUsage = `checkpoint create [-m MESSAGE] [--json]
       agentx-hook checkpoint list [--json]
       agentx-hook checkpoint show ID [--json]
       agentx-hook checkpoint restore ID [--dry-run] [--force] [--json]

A checkpoint is a commit of the durable state under .agentx/ (config,
workflows, ledgers, agent status, memory issue files, manifest, archive,
audit) on refs/agentx/checkpoints, written straight into the repository's
object database: your index, working tree, HEAD, branches and stash are
never touched. ID is at least 4 hex digits of a checkpoint's id.
show lists what changed since the checkpoint (files, records, observations);
restore puts the checkpoint back after checkpointing the present state.`

// checkpointSubs are the checkpoint subcommands.
func checkpointSubs() map[string]runFunc {
	return map[string]runFunc{
		"create":  wire(parseCheckpointCreate, runCheckpointCreate),
		"list":    wire(parseCheckpointList, runCheckpointList),
		"show":    wire(parseCheckpointShow, runCheckpointShow),
		"restore": wire(parseCheckpointRestore, runCheckpointRestore),
	}
}

func runCheckpoint(ctx context.Context, a *App, args []string) error {
	// A short process over thousands of files: collecting garbage it is
	// about to exit with is wasted (the heap stays within a few times the
	// largest file).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	return a.dispatch(ctx, "checkpoint", checkpointUsage, "create, list, show, restore", inMap(checkpointSubs()), nil, args)
}

// checkpoints opens the workspace's checkpoint history. wait is how long
// a lock may be waited for (restore takes each without waiting).
func (a *App) checkpoints(wait time.Duration) (*checkpoint.History, error) {
	cfg, err := a.Config()
	if err != nil {
		return nil, err
	}
	locks := a.Locks()
	if wait > 0 {
		opt := a.lockOptions()
		opt.Wait = wait
		locks = lock.New(opt)
	}
	opt := checkpoint.StateOptions{Now: a.Clock.Now, Keep: cfg.Config.Checkpoints.KeepOr(checkpoint.DefaultKeep),
		Audit: a.auditAppend, Warn: func(s string) { a.warn("%s", s) }}.WithEnv(a.Getenv)
	return checkpoint.OpenState(a.Workspace(), locks, opt)
}

// autoCheckpoint takes the checkpoint a command that rewrites or drops
// state takes first (memory compact, remove, rebuild; hook finish when
// configured). It never makes that command fail: outside a git
// repository, or on any error, it warns (once per process) and the
// command goes on.
func autoCheckpoint(ctx context.Context, a *App, reason string) {
	if _, err := os.Stat(a.Workspace().AgentxDir()); err != nil {
		return // nothing to keep
	}
	h, err := a.checkpoints(0)
	if err == nil {
		_, err = h.Take(ctx, reason)
	}
	if err != nil && !a.checkpointWarned {
		a.checkpointWarned = true
		a.warn("no checkpoint taken %s: %v", reason, err)
	}
}

// checkpointBefore takes the checkpoint an operation that rewrites files
// needs first (`verify --repair`), so that it can be undone. Outside a git
// repository there is nowhere to keep one: a warning, and the operation
// goes on, as the automatic checkpoints do (autoCheckpoint). Any other
// failure stops the operation: a repair without its undo is not made.
func checkpointBefore(ctx context.Context, a *App, reason string) error {
	h, err := a.checkpoints(0)
	if errors.Is(err, gitstore.ErrNotRepository) {
		a.warn("no checkpoint taken %s: %v", reason, err)
		return nil
	}
	if err == nil {
		_, err = h.Take(ctx, reason)
	}
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", reason, err)
	}
	return nil
}

type checkpointCreateOptions struct {
	Message string
	jsonFlag
}

func parseCheckpointCreate(a *App, args []string) (*checkpointCreateOptions, error) {
	o := &checkpointCreateOptions{}
	flags := newFlags(a, "checkpoint create", "checkpoint create [-m MESSAGE] [--json]")
	flags.StringVar(&o.Message, "m", "", "the checkpoint's `message` (at most 2,000 characters)")
	flags.StringVar(&o.Message, "message", "", "the checkpoint's `message` (at most 2,000 characters)")
	o.register(flags)
	pos, err := parse(flags, args)
	if err == nil && len(pos) > 0 {
		err = usagef("checkpoint create takes no arguments (got %q; the message goes in -m)", pos[0])
	}
	// A message is a note a person reads in checkpoint list, bounded as a
	// clarification's body is (it had no bound: megabytes went into the
	// commit and the audit trail).
	if n := utf8.RuneCountInString(o.Message); err == nil && n > validate.MaxBody {
		err = usagef("checkpoint create: -m/--message is %d characters, the limit is %d", n, validate.MaxBody)
	}
	return o, err
}

func runCheckpointCreate(ctx context.Context, a *App, o *checkpointCreateOptions) error {
	s, err := a.checkpoints(0)
	if err != nil {
		return err
	}
	msg := o.Message
	if msg == "" {
		msg = "checkpoint create"
	}
	res, err := s.Take(ctx, msg)
	if err != nil {
		return err
	}
	return a.emit(o.JSON, &checkpoint.CreateDoc{Result: res, Ref: s.RefName()}, res.Line(), res.Warnings()...)
}

func parseCheckpointList(a *App, args []string) (*jsonOnlyOptions, error) {
	return parseNoArgs("checkpoint list", "checkpoint list [--json]")(a, args)
}

func runCheckpointList(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	s, err := a.checkpoints(0)
	if err != nil {
		return err
	}
	list, unaudited, err := s.Listed()
	if err != nil {
		return err
	}
	return a.emit(o.JSON, &checkpoint.ListDoc{Ref: s.RefName(), Checkpoints: list}, checkpoint.ListText(list),
		checkpoint.UnauditedWarning(unaudited))
}

// checkpointIDOptions is the command line of show and restore.
type checkpointIDOptions struct {
	ID     string
	DryRun bool
	// Force restores a checkpoint the audit trail does not name.
	Force bool
	jsonFlag
}

func parseCheckpointID(name, usage string, dryRun bool) func(*App, []string) (*checkpointIDOptions, error) {
	return func(a *App, args []string) (*checkpointIDOptions, error) {
		o := &checkpointIDOptions{}
		flags := newFlags(a, "checkpoint "+name, usage)
		if dryRun {
			flags.BoolVar(&o.DryRun, "dry-run", false, "say what would change, change nothing")
			flags.BoolVar(&o.Force, "force", false, "restore a checkpoint that no checkpoint.create audit line names")
		}
		o.register(flags)
		var err error
		if o.ID, err = parseOne(flags, args, "checkpoint "+name+" needs one checkpoint ID (see `agentx-hook checkpoint list`)"); err != nil {
			return o, err
		}
		if _, err := checkpoint.ParseID(o.ID); err != nil {
			return o, err
		}
		return o, nil
	}
}

func parseCheckpointShow(a *App, args []string) (*checkpointIDOptions, error) {
	return parseCheckpointID("show", "checkpoint show ID [--json]", false)(a, args)
}

func runCheckpointShow(ctx context.Context, a *App, o *checkpointIDOptions) error {
	s, err := a.checkpoints(0)
	if err != nil {
		return err
	}
	d, err := s.Show(ctx, o.ID)
	if err != nil {
		return err
	}
	return a.emit(o.JSON, &checkpoint.ShowDoc{Diff: d}, d.Text(), d.Warnings()...)
}

func parseCheckpointRestore(a *App, args []string) (*checkpointIDOptions, error) {
	return parseCheckpointID("restore", "checkpoint restore ID [--dry-run] [--force] [--json]", true)(a, args)
}

// restoreLockWait is how long restore waits for each lock: long enough
// to win a lock between two quick writes, short enough that a write in
// progress refuses the restore instead of being waited out.
const restoreLockWait = 200 * time.Millisecond

func runCheckpointRestore(ctx context.Context, a *App, o *checkpointIDOptions) error {
	s, err := a.checkpoints(restoreLockWait)
	if err != nil {
		return err
	}
	res, err := s.RestoreAudited(ctx, o.ID, o.DryRun, o.Force, a.Memory)
	if err != nil {
		return err
	}
	return a.emit(o.JSON, &checkpoint.RestoreDoc{RestoreResult: res}, res.Text())
}
