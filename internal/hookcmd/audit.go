package hookcmd

import (
	"context"
	"fmt"
	"os"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// AuditTrail returns the workspace's audit trail, naming this program and
// its version on every line.
func (a *App) AuditTrail() *audit.Trail {
	return &audit.Trail{Dir: a.Workspace().StateDir(), Locks: a.Locks(), Clock: a.Clock,
		Tool: "agentx-hook", Version: buildVersion().Version}
}

// actor is who runs a command that names no agent (audit.Actor).
func (a *App) actor() string { return audit.Actor(a.Getenv) }

// auditAppend appends one line; a failure is a warning (the operation it
// records has happened).
func (a *App) auditAppend(ctx context.Context, e audit.Entry) {
	if e.Actor == "" {
		e.Actor = a.actor()
	}
	if err := a.AuditTrail().Append(ctx, e); err != nil {
		a.warn("audit trail: %v", err)
	}
}

const auditUsage = `audit [--id CLR-N-NNN|OBS-ID] [--issue N] [--since 7d] [--json]
       agentx-hook audit --state-branch [REF] [--id ID] [--issue N] [--since 7d] [--json]

The audit trail (.agentx/state/audit.jsonl and its monthly files), oldest
first: every state-changing operation, who made it, the ids it touched and
their content hashes before and after. ` + "`agentx-hook verify`" + ` checks the chain.

--state-branch lists instead every trail on the state branch (GitHub Mode),
read from this repository's object database without a checkout: the
Action's (state/audit*.jsonl, trail "action") and each clone's
(state/audit.d/WRITER-ID/, trail WRITER-ID), merged oldest first, each line
naming its trail. REF defaults to the remote-tracking ref sync keeps,
refs/remotes/<[github] remote>/<[github] state_branch>; any ref, tag or full
hash is taken.
  agentx-hook audit --state-branch --id CLR-7-001`

// auditOptions is `audit`'s command line.
type auditOptions struct {
	ID    string
	Issue int
	Since string
	// StateBranch reads the state branch's trails at Ref ("" for the
	// tracking ref) instead of the local trail.
	StateBranch bool
	Ref         string
	jsonFlag
}

func parseAudit(a *App, args []string) (*auditOptions, error) {
	o := &auditOptions{}
	flags := newFlags(a, "audit", auditUsage)
	flags.StringVar(&o.ID, "id", "", "only lines that touched `ID` (CLR-N-NNN or an observation id)")
	issue := flags.String("issue", "", "only lines of issue `N`")
	flags.StringVar(&o.Since, "since", "", "only lines newer than `DURATION` (7d, 12h) or at/after a date (ISO 8601)")
	flags.BoolVar(&o.StateBranch, "state-branch", false, "list every trail of the state branch instead of the local one: at the ref given as an argument after it (default: the remote-tracking ref)")
	o.register(flags)
	pos, err := parse(flags, args)
	if err == nil {
		o.Ref, err = stateBranchRef("audit", o.StateBranch, pos)
	}
	if err == nil && *issue != "" {
		// The rule every command applies (1 to 10^9, digits only): 0 here
		// would mean "no filter", +1 and 1000000001 were taken as given.
		n, verr := validate.Issue(*issue)
		if verr != nil {
			err = usagef("--issue: %v", verr)
		}
		o.Issue = n
	}
	if err == nil && o.ID != "" && !audit.IsID(o.ID) {
		return o, errcode.New(errcode.InvalidInput, "--id %q is not a clarification or observation id", o.ID)
	}
	return o, err
}

func runAudit(_ context.Context, a *App, o *auditOptions) error {
	f := audit.Filter{ID: o.ID, Issue: o.Issue}
	if o.Since != "" {
		t, err := parseWhen(a, o.Since)
		if err != nil {
			return err
		}
		f.Since = t
	}
	read := func(f audit.Filter) (l *audit.Listing, err error) {
		if o.StateBranch {
			var tree *statebranch.Tree
			var ref string
			if tree, ref, err = a.openStateBranch(o.Ref); err != nil {
				return nil, err
			}
			l, err = audit.BranchListing(tree, ref, tree.Commit, f)
		} else if err = a.checkWorkspace(); err == nil {
			l, err = audit.LocalListing(a.Workspace().StateDir(), f)
		}
		if err == nil {
			a.warnEach(l.Warning())
		}
		return l, err
	}
	l, err := read(f)
	if err != nil {
		return err
	}
	// A record renumbered by a merge is followed back to its first id.
	if old := statemerge.RenamedFromID(a.Ledgers(), o.ID); old != "" {
		f.ID = old
		aliased, err := read(f)
		if err != nil {
			return err
		}
		if note := l.FollowRename(aliased.Entries, o.ID, old); note != "" && !o.JSON {
			fmt.Fprintln(a.Stderr, "note: "+note)
		}
	}
	return a.emit(o.JSON, l.Doc(), l.Table())
}

// auditHooks records a hooks install or uninstall, when the workspace has
// a .agentx/ to keep the trail in (hooks may be installed before init).
func (a *App) auditHooks(ctx context.Context, name, dir string, steps []githooks.Step) {
	if _, err := os.Stat(a.Workspace().StateDir()); err != nil {
		return
	}
	a.auditAppend(ctx, githooks.AuditEntry(name, dir, steps))
}
