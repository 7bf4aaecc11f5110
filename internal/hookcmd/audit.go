package hookcmd

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/githooks"
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

The audit trail (.agentx/state/audit.jsonl and its monthly files), oldest
first: every state-changing operation, who made it, the ids it touched and
their content hashes before and after. ` + "`agentx-hook verify`" + ` checks the chain.`

// auditOptions is `audit`'s command line.
type auditOptions struct {
	ID    string
	Issue int
	Since string
	jsonFlag
}

// auditIDPattern is what --id accepts: a clarification or observation id
// (old tools' ids too), never a path.
var auditIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)

func parseAudit(a *App, args []string) (*auditOptions, error) {
	o := &auditOptions{}
	flags := newFlags(a, "audit", auditUsage)
	flags.StringVar(&o.ID, "id", "", "only lines that touched `ID` (CLR-N-NNN or an observation id)")
	issue := flags.String("issue", "", "only lines of issue `N`")
	flags.StringVar(&o.Since, "since", "", "only lines newer than `DURATION` (7d, 12h) or at/after a date (ISO 8601)")
	o.register(flags)
	pos, err := parse(flags, args)
	if err == nil && len(pos) > 0 {
		err = usagef("audit takes no arguments (got %q)", pos[0])
	}
	if err == nil && *issue != "" {
		n, cerr := strconv.Atoi(*issue)
		if cerr != nil || n < 0 {
			err = usagef("--issue %q is not an issue number", *issue)
		}
		o.Issue = n
	}
	if err == nil && o.ID != "" && (!auditIDPattern.MatchString(o.ID) || strings.Contains(o.ID, "..")) {
		return o, errcode.New(errcode.InvalidInput, "--id %q is not a clarification or observation id", o.ID)
	}
	return o, err
}

type auditDoc struct {
	Entries []audit.Entry `json:"entries"`
	schemaVersion
}

func runAudit(_ context.Context, a *App, o *auditOptions) error {
	ws := a.Workspace()
	if err := ws.CheckContained(); err != nil {
		return err
	}
	f := audit.Filter{ID: o.ID, Issue: o.Issue}
	if o.Since != "" {
		t, err := parseWhen(a, o.Since)
		if err != nil {
			return err
		}
		f.Since = t
	}
	entries, err := audit.History(ws.StateDir(), f)
	if err != nil {
		return errcode.Wrap(errcode.CorruptState, err, "read the audit trail")
	}
	if o.JSON {
		if entries == nil {
			entries = []audit.Entry{}
		}
		return a.writeDoc(&auditDoc{Entries: entries})
	}
	if len(entries) == 0 {
		fmt.Fprintln(a.Stdout, "No audit entries.")
		return nil
	}
	tw := tabwriter.NewWriter(a.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tACTOR\tOPERATION\tISSUE\tIDS\tDETAIL")
	for _, e := range entries {
		issue := "-"
		if e.Issue != 0 {
			issue = "#" + strconv.Itoa(e.Issue)
		}
		ids := strings.Join(e.IDs, ",")
		if e.MoreIDs > 0 {
			ids += fmt.Sprintf(" (+%d)", e.MoreIDs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Time, e.Actor, e.Op, issue, ids, e.Detail)
	}
	return tw.Flush()
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
