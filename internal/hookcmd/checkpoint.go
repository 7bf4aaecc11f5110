package hookcmd

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/checkpoint"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
	"github.com/agentx-dev/agentx/internal/core/statesync"
	"github.com/agentx-dev/agentx/internal/core/workspace"
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
func (a *App) checkpoints(wait time.Duration) (*checkpoint.Store, error) {
	if _, err := a.Config(); err != nil {
		return nil, err
	}
	locks := a.Locks()
	if wait > 0 {
		opt := a.lockOptions()
		opt.Wait = wait
		locks = lock.New(opt)
	}
	s, err := checkpoint.Open(a.Workspace(), locks)
	if err != nil {
		return nil, err
	}
	s.Now = a.Clock.Now
	trailDir := a.AuditTrail().Dir
	s.AuditHead = func() string {
		h, _ := audit.Head(trailDir)
		return h
	}
	// The manifest indexes the issue files: after a restore it is brought
	// in line with them (memory's Reindex, or Rebuild) instead of copied,
	// which would leave its search index of another generation and cost a
	// whole rebuild.
	manifest := "memory/manifest.json"
	s.Derived = func(rel string) bool { return rel == manifest }
	// The audit trail is append-only: a restore is one more line in it,
	// never a rollback of it.
	s.Kept = func(rel string) bool { return path.Dir(rel) == "state" && audit.IsFileName(path.Base(rel)) }
	// What a restore brings back that was removed since (memory remove,
	// compaction) is marked revived, or the next sync or merge would
	// apply the removal's tombstone again (docs/merge.md).
	s.Adjust = func(rel string, restored, current []byte) ([]byte, error) {
		if ok, _ := statemerge.Classify(rel); !ok {
			return restored, nil
		}
		by := a.Getenv("AGENTX_AGENT")
		if by == "" {
			by = "cli"
		}
		return statemerge.Revive(rel, restored, current, clock.Format(a.Clock.Now()), by,
			"checkpoint restore "+shorten.Runes(s.RestoreID, 12))
	}
	// A test hook: a pause after each restored file, so that a crash test
	// can kill the process in the middle of a restore.
	if ms, err := strconv.Atoi(a.Getenv("AGENTX_TEST_RESTORE_PAUSE_MS")); err == nil && ms > 0 {
		s.BetweenFiles = func() { time.Sleep(time.Duration(ms) * time.Millisecond) }
	}
	return s, nil
}

// keep is the retention of [checkpoints] keep.
func (a *App) keepCheckpoints() int {
	if cfg, err := a.Config(); err == nil {
		return cfg.Config.Checkpoints.KeepOr(checkpoint.DefaultKeep)
	}
	return checkpoint.DefaultKeep
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
	s, err := a.checkpoints(0)
	if err == nil {
		var res *checkpoint.Result
		if res, err = s.Create(ctx, reason, a.keepCheckpoints()); err == nil {
			a.auditCheckpoint(ctx, res, reason)
		}
	}
	if err != nil && !a.checkpointWarned {
		a.checkpointWarned = true
		a.warn("no checkpoint taken %s: %v", reason, err)
	}
}

// auditCheckpoint records a checkpoint made (none when the state was
// unchanged: nothing happened).
func (a *App) auditCheckpoint(ctx context.Context, res *checkpoint.Result, message string) {
	if res == nil || !res.Created {
		return
	}
	a.auditAppend(ctx, audit.Entry{Op: "checkpoint.create", IDs: []string{res.Short},
		After: map[string]string{res.Short: "tree:" + res.Tree}, Detail: shorten.Line(message, 200)})
}

type checkpointCreateOptions struct {
	Message string
	jsonFlag
}

func parseCheckpointCreate(a *App, args []string) (*checkpointCreateOptions, error) {
	o := &checkpointCreateOptions{}
	flags := newFlags(a, "checkpoint create", "checkpoint create [-m MESSAGE] [--json]")
	flags.StringVar(&o.Message, "m", "", "the checkpoint's `message`")
	flags.StringVar(&o.Message, "message", "", "the checkpoint's `message`")
	o.register(flags)
	pos, err := parse(flags, args)
	if err == nil && len(pos) > 0 {
		err = usagef("checkpoint create takes no arguments (got %q; the message goes in -m)", pos[0])
	}
	return o, err
}

type checkpointCreateDoc struct {
	*checkpoint.Result
	Ref string `json:"ref"`
	schemaVersion
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
	res, err := s.Create(ctx, msg, a.keepCheckpoints())
	if err != nil {
		return err
	}
	a.auditCheckpoint(ctx, res, msg)
	if o.JSON {
		return a.writeDoc(&checkpointCreateDoc{Result: res, Ref: s.RefName()})
	}
	if res.Created {
		fmt.Fprintf(a.Stdout, "%s checkpoint of %d files (%d new blobs)\n", res.Short, res.Files, res.Blobs)
	} else {
		fmt.Fprintf(a.Stdout, "%s unchanged: the state equals the last checkpoint\n", res.Short)
	}
	for _, p := range res.Skipped {
		a.warn("not a regular file, left out: .agentx/%s", p)
	}
	return nil
}

var parseCheckpointList = parseNoArgs("checkpoint list", "checkpoint list [--json]")

type checkpointListDoc struct {
	Ref         string                  `json:"ref"`
	Checkpoints []checkpoint.Checkpoint `json:"checkpoints"`
	schemaVersion
}

func runCheckpointList(ctx context.Context, a *App, o *jsonOnlyOptions) error {
	s, err := a.checkpoints(0)
	if err != nil {
		return err
	}
	list, err := s.List()
	if err != nil {
		return err
	}
	a.readCheckpointTrail().markUnaudited(list)
	if o.JSON {
		return a.writeDoc(&checkpointListDoc{Ref: s.RefName(), Checkpoints: list})
	}
	if len(list) == 0 {
		fmt.Fprintln(a.Stdout, "No checkpoints yet (agentx-hook checkpoint create makes one).")
		return nil
	}
	unaudited := 0
	for _, c := range list {
		mark := ""
		if c.Unaudited {
			mark, unaudited = "  [UNAUDITED]", unaudited+1
		}
		fmt.Fprintf(a.Stdout, "%s  %s  %s%s\n", c.Short, c.Time.Format("2006-01-02 15:04:05Z"), c.Message, mark)
	}
	if unaudited > 0 {
		a.warn("%d checkpoint%s marked [UNAUDITED]: no %s line of the audit trail names it, so agentx did not make it (git commit-tree?) or the line was lost; restore refuses it without --force",
			unaudited, plural(unaudited), opCheckpointCreate)
	}
	return nil
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
		pos, err := parse(flags, args)
		if err != nil {
			return o, err
		}
		if len(pos) != 1 {
			return o, usagef("checkpoint %s needs one checkpoint ID (see `agentx-hook checkpoint list`)", name)
		}
		o.ID = pos[0]
		if _, err := checkpoint.ParseID(o.ID); err != nil {
			return o, err
		}
		return o, nil
	}
}

var parseCheckpointShow = parseCheckpointID("show", "checkpoint show ID [--json]", false)

type checkpointShowDoc struct {
	*checkpoint.Diff
	schemaVersion
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
	if o.JSON {
		return a.writeDoc(&checkpointShowDoc{Diff: d})
	}
	c := d.Checkpoint
	fmt.Fprintf(a.Stdout, "checkpoint %s  %s  %s\n", c.Short, c.Time.Format("2006-01-02 15:04:05Z"), c.Message)
	if len(d.Files) == 0 {
		fmt.Fprintln(a.Stdout, "No changes since this checkpoint.")
		return nil
	}
	fmt.Fprintln(a.Stdout, "\nSince then (added: new now; removed: only in the checkpoint):")
	for _, f := range d.Files {
		fmt.Fprintf(a.Stdout, "  %-8s .agentx/%s\n", f.Change, f.Path)
	}
	items := func(title string, list []checkpoint.ItemChange) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(a.Stdout, "\n%s:\n", title)
		for _, it := range list {
			line := fmt.Sprintf("  %-8s %s (issue #%d)", it.Change, it.ID, it.Issue)
			if it.Detail != "" {
				line += ": " + it.Detail
			}
			fmt.Fprintln(a.Stdout, line)
		}
	}
	items("Clarification records", d.Records)
	items("Observations", d.Observations)
	for _, p := range d.Unreadable {
		a.warn(".agentx/%s does not parse on one side; compared as a file only", p)
	}
	return nil
}

var parseCheckpointRestore = parseCheckpointID("restore", "checkpoint restore ID [--dry-run] [--force] [--json]", true)

type checkpointRestoreDoc struct {
	*checkpoint.RestoreResult
	schemaVersion
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
	target, err := s.Get(o.ID)
	if err != nil {
		return err
	}
	if _, made := a.readCheckpointTrail().at(target); !made {
		if !o.Force {
			return errcode.New(errcode.InvalidInput, "%s", unauditedMessage(target)).
				WithHint("`git show " + target.Commit + "` shows who wrote it; `agentx-hook checkpoint restore " + target.Short + " --force` restores it anyway")
		}
		a.warn("%s; restoring it as --force asks", unauditedMessage(target))
	}
	res, err := s.Restore(ctx, o.ID, o.DryRun, "before checkpoint restore "+target.Short, a.keepCheckpoints())
	if err != nil {
		return err
	}
	if !o.DryRun {
		if res.Before != nil {
			a.auditCheckpoint(ctx, res.Before, "before checkpoint restore "+target.Short)
		}
		if res.Changed() || len(res.Derived) > 0 {
			a.rebuildDerived(ctx, res)
		}
		a.auditAppend(ctx, audit.Entry{Op: "checkpoint.restore", IDs: []string{target.Short},
			Detail: fmt.Sprintf("%d written, %d removed", len(res.Written), len(res.Removed))})
	}
	if o.JSON {
		return a.writeDoc(&checkpointRestoreDoc{RestoreResult: res})
	}
	verb := "restored"
	if o.DryRun {
		verb = "would restore"
	}
	for _, p := range res.Written {
		fmt.Fprintf(a.Stdout, "%s .agentx/%s\n", verb, p)
	}
	verb = "removed"
	if o.DryRun {
		verb = "would remove"
	}
	for _, p := range res.Removed {
		fmt.Fprintf(a.Stdout, "%s .agentx/%s\n", verb, p)
	}
	verb = "rebuilt"
	if o.DryRun {
		verb = "would rebuild"
	}
	for _, p := range res.Derived {
		fmt.Fprintf(a.Stdout, "%s .agentx/%s (from the restored files)\n", verb, p)
	}
	switch {
	case !res.Changed():
		fmt.Fprintf(a.Stdout, "Nothing to do: the state equals checkpoint %s.\n", res.Target.Short)
	case o.DryRun:
		fmt.Fprintf(a.Stdout, "Dry run: nothing changed.\n")
	default:
		fmt.Fprintf(a.Stdout, "Restored checkpoint %s; the state before is checkpoint %s (agentx-hook checkpoint restore %s undoes this).\n",
			res.Target.Short, res.Before.Short, res.Before.Short)
	}
	return nil
}

// rebuildDerived brings the derived indexes in line with restored files:
// the memory manifest and search index are rebuilt from the issue files,
// the monitor's index is dropped (its next scan writes it again). A
// failure is a warning: the restored files are right, and the indexes
// rebuild themselves when found stale.
func (a *App) rebuildDerived(ctx context.Context, res *checkpoint.RestoreResult) {
	ws := a.Workspace()
	issues := statesync.MemoryIssues(res.Written, res.Removed)
	// A manifest that differs from the checkpoint's while no issue file was
	// restored still describes the issue files there are: only one that is
	// gone needs the rebuild (a restore of ledgers alone cost a whole
	// rebuild of the memory index otherwise, 1.5 s over 100K observations).
	_, statErr := os.Stat(a.Memory().ManifestPath())
	if len(issues) > 0 || len(res.Derived) > 0 && statErr != nil {
		var err error
		if len(issues) > reindexMax || len(issues) == 0 {
			_, err = a.Memory().Rebuild(ctx)
		} else {
			err = a.Memory().Reindex(ctx, issues)
		}
		if err != nil {
			a.warn("restored, but the memory index was not rebuilt: %v (run `agentx-hook memory rebuild`)", err)
		}
	}
	if err := os.Remove(filepath.Join(ws.ClarificationsDir(), workspace.MonitorIndexName)); err != nil && !os.IsNotExist(err) {
		a.warn("restored, but the monitor index was not dropped: %v", err)
	}
}

// reindexMax is how many restored memory issue files are reindexed one by
// one; past it a whole rebuild is cheaper.
const reindexMax = 100
