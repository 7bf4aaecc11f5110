package hookcmd

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/verify"
)

const verifyUsage = `verify [--repair] [--json]
       agentx-hook verify --state-branch [REF] [--json]

Check everything agentx keeps under .agentx/: the configuration (agentx.toml
and workflows/*.toml load; unknown keys are warnings), ledgers (parse, issue numbers,
ids, rounds and statuses against the protocol, timestamps, entry hashes),
agent-status.json, the event log, the audit trail's chain, the memory store
(observation hashes, the archive, the manifest where one is kept), derived
indexes, and leftovers of crashed writers. Each problem is printed with its
code, path, id and byte offset; the codes are listed at
https://github.com/agentx-dev/agentx/blob/main/docs/verify.md. Exit 1 when
anything is wrong, 0 with a one-line summary otherwise; stale derived
indexes and files from before hashes are reported but are not errors.

--repair first takes a checkpoint, then fixes only what follows from the
files without guessing: the search index (and manifest, where one is kept)
rebuilt from the issue files, a stale monitor index deleted, dead writers'
temporaries and dead processes' locks removed. Ledger records and observations are never changed.

--state-branch checks the state branch (GitHub Mode) as this repository has
it, read from its object database: nothing is checked out and the index and
work tree are not touched. REF defaults to the remote-tracking ref sync keeps,
refs/remotes/<[github] remote>/<[github] state_branch>; any ref, tag or full
hash is taken. Ledgers, memory issue and archive files, and every audit trail
on it (the Action's in state/, each clone's in state/audit.d/ID/) are checked;
paths are the branch's.
  agentx-hook verify --state-branch`

// verifyOptions is `verify`'s command line.
type verifyOptions struct {
	Repair bool
	// StateBranch checks the state branch at Ref ("" for the tracking ref).
	StateBranch bool
	Ref         string
	jsonFlag
	// printed: the report document is out, so a failure must not print a
	// second one (wire asks jsonMode).
	printed bool
}

func (o *verifyOptions) jsonMode() bool { return o.JSON && !o.printed }

func parseVerify(a *App, args []string) (*verifyOptions, error) {
	o := &verifyOptions{}
	flags := newFlags(a, "verify", verifyUsage)
	flags.BoolVar(&o.Repair, "repair", false, "fix what can be derived from the files (after a checkpoint), then check again")
	flags.BoolVar(&o.StateBranch, "state-branch", false, "check the state branch instead of .agentx/: at the ref given as an argument after it (default: the remote-tracking ref)")
	o.register(flags)
	pos, err := parse(flags, args)
	if err == nil {
		o.Ref, err = stateBranchRef("verify", o.StateBranch, pos)
	}
	if err == nil && o.StateBranch && o.Repair {
		err = usagef("--repair works on .agentx/ only; the state branch is repaired by syncing a repaired workspace")
	}
	return o, err
}

// stateBranchRef is the REF argument of `cmd --state-branch [REF]`: the
// one positional argument, allowed only with the switch.
func stateBranchRef(cmd string, on bool, pos []string) (string, error) {
	switch {
	case on && len(pos) > 1:
		return "", usagef("%s --state-branch takes one REF (got %q)", cmd, pos[1])
	case len(pos) > 0 && !on:
		return "", usagef("%s takes no arguments (got %q)", cmd, pos[0])
	case len(pos) == 1:
		return pos[0], nil
	}
	return "", nil
}

func runVerify(ctx context.Context, a *App, o *verifyOptions) error {
	// verify reads the whole store once and holds a row per observation
	// and per anchor (about 100 bytes, no pointers). A soft memory limit
	// below what it holds made the collector run without pause (1M
	// observations: 94 s of CPU against 29 s without it, issue 35), and a
	// high GC percentage multiplied the peak: the default percentage keeps
	// both in proportion to the store (1M: 13.5 s, 225 MB; at 50, 15.3 s
	// and 176 MB).
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if o.StateBranch {
		return runVerifyBranch(a, o)
	}
	ws := a.Workspace()
	opt := a.verifyOptions()
	rep, err := verify.Run(ws, opt)
	if err != nil {
		return errcode.Wrap(errcode.NotFound, err, "verify")
	}
	var repairs []verify.Done
	if o.Repair && verify.Repairable(rep) {
		if err := checkpointBefore(ctx, a, "before verify --repair"); err != nil {
			return fmt.Errorf("checkpoint before repairing (nothing was repaired): %w", err)
		}
		repairs = verify.Repair(ctx, ws, a.Locks(), rep)
		if e, ok := verify.RepairEntry(repairs); ok {
			a.auditAppend(ctx, e)
		}
		if rep, err = verify.Run(ws, opt); err != nil {
			return err
		}
	}
	failure := rep.Failure(ws.AgentxDir(), o.Repair)
	return a.reportVerify(o, rep.Doc(repairs, failure), failure, func() string { return rep.Text(repairs) })
}

// verifyOptions are the options of a check of this workspace: the audit
// anchors and baseline from its checkpoints, the clock, its git dirs.
func (a *App) verifyOptions() verify.Options {
	ws := a.Workspace()
	var opt verify.Options
	if s, err := a.checkpoints(0); err == nil {
		opt.AuditAnchors, opt.Baseline, opt.Extra = verify.FromCheckpoints(ws.Root, s.Store, a.AuditTrail().Dir)
	}
	opt.Now, opt.GitDirs = a.Clock.Now, verify.GitDirs(ws.Root)
	return opt
}

// VerifyReport checks the workspace as `verify` does, repairing nothing.
func (a *App) VerifyReport() (*verify.Report, error) {
	return verify.Run(a.Workspace(), a.verifyOptions())
}

// reportVerify prints the outcome, doc with --json, else with text; then
// returns failure.
func (a *App) reportVerify(o *verifyOptions, doc *verify.Doc, failure *errcode.Error, text func() string) error {
	if !o.JSON {
		fmt.Fprint(a.Stdout, text())
	} else {
		o.printed = true
		if err := a.writeDoc(doc); err != nil {
			return err
		}
	}
	if failure != nil {
		return failure
	}
	return nil
}

// runVerifyBranch is verify --state-branch: the branch's tree read from
// the object database, checked like .agentx/ minus what only a workspace
// holds.
func runVerifyBranch(a *App, o *verifyOptions) error {
	tree, ref, err := a.openStateBranch(o.Ref)
	if err != nil {
		return err
	}
	rep, err := verify.RunFS(tree, verify.Options{Now: a.Clock.Now})
	if err != nil {
		return err
	}
	failure := rep.BranchFailure(ref, tree.Commit)
	doc := rep.Doc(nil, failure)
	doc.Ref, doc.Commit = ref, tree.Commit
	return a.reportVerify(o, doc, failure, func() string { return rep.BranchText(ref, tree.Commit) })
}

// openStateBranch reads the state branch's tree at ref, by default ("")
// the remote-tracking ref sync keeps, and returns it with the ref read.
func (a *App) openStateBranch(ref string) (*statebranch.Tree, string, error) {
	var remote, branch string
	if ref == "" {
		cfg, err := a.Config()
		if err != nil {
			return nil, "", err
		}
		remote, branch = cfg.Config.GitHub.Remote, cfg.Config.GitHub.StateBranch
	}
	return statebranch.OpenTracked(a.Workspace().Root, remote, branch, ref)
}
