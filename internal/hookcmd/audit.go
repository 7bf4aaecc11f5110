package hookcmd

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/githooks"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// AuditTrail returns the workspace's audit trail, naming this program and
// its version on every line.
func (a *App) AuditTrail() *audit.Trail {
	return &audit.Trail{Dir: a.Workspace().StateDir(), Locks: a.Locks(), Clock: a.Clock,
		Tool: "agentx-hook", Version: buildVersion().Version}
}

// actor is who runs a command that names no agent: $AGENTX_AGENT, else
// $USER, else "cli".
func (a *App) actor() string {
	for _, v := range []string{"AGENTX_AGENT", "USER", "USERNAME"} {
		if s := strings.TrimSpace(a.Getenv(v)); s != "" {
			return s
		}
	}
	return "cli"
}

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

// auditID is what --id accepts: a clarification or observation id
// (old tools' ids too), never a path.
// Checked by hand, not a regexp: compiling one at start cost every
// process 0.3 ms and 1,700 allocations for a flag few commands take.
func auditID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != ':' && c != '-') {
			return false
		}
	}
	return true
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
	if err == nil && o.ID != "" && (!auditID(o.ID) || strings.Contains(o.ID, "..")) {
		return o, errcode.New(errcode.InvalidInput, "--id %q is not a clarification or observation id", o.ID)
	}
	return o, err
}

type auditDoc struct {
	Entries []audit.TrailEntry `json:"entries"`
	// Problems counts what is wrong with the trails read (their chains
	// checked as verify does): the entries may not be what happened.
	Problems int `json:"problems"`
	// Ref and Commit name what --state-branch read.
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	// RenamedFrom is the first id of a record a merge renumbered: lines
	// naming it before the renumbering are listed too.
	RenamedFrom string `json:"renamedFrom,omitempty"`
	schemaVersion
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
	doc := &auditDoc{Entries: []audit.TrailEntry{}}
	read := func(f audit.Filter, doc *auditDoc) error {
		if o.StateBranch {
			return a.branchAudit(o.Ref, f, doc)
		}
		return a.localAudit(f, doc)
	}
	if err := read(f, doc); err != nil {
		return err
	}
	// A record renumbered by a merge is followed back to its first id.
	if old := a.renamedFrom(o.ID); old != "" {
		f.ID = old
		aliased := &auditDoc{}
		if err := read(f, aliased); err != nil {
			return err
		}
		var note string
		if doc.Entries, note = followRename(doc.Entries, aliased.Entries, o.ID, old); note != "" {
			doc.RenamedFrom = old
			if !o.JSON {
				fmt.Fprintln(a.Stderr, "note: "+note)
			}
		}
	}
	if o.JSON {
		if doc.Entries == nil {
			doc.Entries = []audit.TrailEntry{}
		}
		return a.writeDoc(doc)
	}
	if len(doc.Entries) == 0 {
		fmt.Fprintln(a.Stdout, "No audit entries.")
		return nil
	}
	tw := tabwriter.NewWriter(a.Stdout, 2, 4, 2, ' ', 0)
	trail := func(string) string { return "" }
	if o.StateBranch {
		trail = func(s string) string { return s + "\t" }
		fmt.Fprint(tw, "TRAIL\t")
	}
	fmt.Fprintln(tw, "TIME\tACTOR\tOPERATION\tISSUE\tIDS\tDETAIL")
	for _, e := range doc.Entries {
		issue := "-"
		if e.Issue != 0 {
			issue = "#" + strconv.Itoa(e.Issue)
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\n", trail(e.Trail), e.Time, shorten.Runes(e.Actor, maxActorShown), e.Op, issue, idsShown(e.IDs, e.MoreIDs), e.Detail)
	}
	return tw.Flush()
}

// The table's columns stay narrow whatever one entry holds: a sync that
// touched 200 records would otherwise pad every row to its id list (the
// full list is in --json and `audit --id`).
const (
	maxIDsShown   = 2
	maxActorShown = 24
)

// idsShown is the first ids of an entry and how many more there are.
func idsShown(ids []string, more int) string {
	if len(ids) > maxIDsShown {
		more += len(ids) - maxIDsShown
		ids = ids[:maxIDsShown]
	}
	s := strings.Join(ids, ",")
	if more > 0 {
		s += fmt.Sprintf(" +%d", more)
	}
	return s
}

// branchAudit reads the history of every trail on the state branch at ref
// into doc, and checks their chains.
func (a *App) branchAudit(ref string, f audit.Filter, doc *auditDoc) error {
	tree, ref, err := a.openStateBranch(ref)
	if err != nil {
		return err
	}
	doc.Ref, doc.Commit = ref, tree.Commit
	var findings []audit.Finding
	if doc.Entries, findings, err = audit.CheckedBranchHistory(tree, f); err != nil {
		ce := errcode.Wrap(errcode.CorruptState, err, "read the audit trails of the state branch %s", ref)
		ce.Hint = "`agentx-hook verify --state-branch` says what is wrong with them"
		return ce
	}
	if doc.Problems = errorsOf(findings); doc.Problems > 0 {
		a.warn("the audit trails of %s have %d problem%s (a line edited, removed or out of order): what is listed may not be what happened; `agentx-hook verify --state-branch` says where",
			ref, doc.Problems, plural(doc.Problems))
	}
	return nil
}

// localAudit reads the history of the workspace's trail into doc, and
// checks its chain.
func (a *App) localAudit(f audit.Filter, doc *auditDoc) error {
	ws := a.Workspace()
	if err := a.checkWorkspace(); err != nil {
		return err
	}
	entries, findings, err := audit.CheckedHistory(ws.StateDir(), f)
	if err != nil {
		return errcode.Wrap(errcode.CorruptState, err, "read the audit trail")
	}
	for _, e := range entries {
		doc.Entries = append(doc.Entries, audit.TrailEntry{Entry: e})
	}
	if doc.Problems = errorsOf(findings); doc.Problems > 0 {
		a.warn("the audit trail has %d problem%s (a line edited, removed or out of order): what is listed may not be what happened; `agentx-hook verify` says where",
			doc.Problems, plural(doc.Problems))
	}
	return nil
}

// errorsOf counts the findings that are errors (a torn last line is not).
func errorsOf(findings []audit.Finding) int {
	n := 0
	for _, f := range findings {
		if !f.Info {
			n++
		}
	}
	return n
}

// auditHooks records a hooks install or uninstall, when the workspace has
// a .agentx/ to keep the trail in (hooks may be installed before init).
func (a *App) auditHooks(ctx context.Context, name, dir string, steps []githooks.Step) {
	if _, err := os.Stat(a.Workspace().StateDir()); err != nil {
		return
	}
	var hooks []string
	for _, st := range steps {
		hooks = append(hooks, st.Hook+":"+string(st.Kind))
	}
	a.auditAppend(ctx, audit.Entry{Op: "hooks." + name, IDs: hooks, Detail: dir})
}
