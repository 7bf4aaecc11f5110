package actioncmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/workspace"
	"github.com/agentx-dev/agentx/internal/sync"
)

// inputs are the action's inputs (action.yml), already defaulted.
type inputs struct {
	command       string
	token         string
	root          string
	blocked       string
	escalated     string
	associations  []string
	users         []string
	bot           string
	stateBranch   string
	dryRun        bool
	full          bool
	writeInterval time.Duration
	repoPrefix    string
	repository    string
	apiURL        string
	eventName     string
	event         map[string]any
	workspaceRoot string
	stepSummaryOn bool
	// people.go: who may run commands, and the monitor's reconcile slice.
	minPermission    string
	replyToOutsiders bool
	reconcile        int
	rootSet          bool          // the root input names a directory: a checkout is expected there
	noCheckout       bool          // the default root, and no checkout at all (explain.go)
	budget           int           // operations-per-run
	maxWait          time.Duration // max-wait
	debug            bool          // the runner's step debug (ACTIONS_STEP_DEBUG)
}

// Clean is the egress sanitiser: the core's (secrets and <private> out,
// size capped) and then every at sign GitHub could read as a mention
// neutralised, whatever the Markdown around it, so a mirror pings nobody.
func Clean(s string) string { return sync.Unmention(sanitize.Text(s)) }

func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// readInputs reads INPUT_* and the GITHUB_* context. The token is masked
// before anything else is printed.
func (a *App) readInputs(gha *githubactions.Action) (*inputs, error) {
	in := &inputs{}
	in.token = gha.GetInput("github-token")
	if in.token == "" {
		in.token = a.Getenv("GITHUB_TOKEN")
	}
	if in.token != "" {
		gha.AddMask(in.token)
	}
	gctx, err := gha.Context()
	if err != nil {
		return nil, fmt.Errorf("runner context: %w", err)
	}
	in.command = strings.ToLower(orDefault(gha.GetInput("command"), "sync"))
	in.blocked = orDefault(gha.GetInput("blocked-label"), "clarification-blocked")
	in.escalated = orDefault(gha.GetInput("escalated-label"), "clarification-escalated")
	in.associations = splitList(strings.ToUpper(orDefault(gha.GetInput("allowed-associations"), strings.Join(sync.DefaultAssociations, ","))))
	in.users = splitList(gha.GetInput("allowed-users"))
	in.bot = orDefault(gha.GetInput("bot-login"), "github-actions[bot]")
	if in.dryRun, err = boolInput(gha, "dry-run"); err != nil {
		return nil, err
	}
	if in.full, err = boolInput(gha, "full-resync"); err != nil {
		return nil, err
	}
	in.writeInterval = sync.DefaultWriteInterval
	if v := gha.GetInput("write-interval"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("input write-interval: %q is not a duration like 750ms", v)
		}
		in.writeInterval = d
		if d == 0 {
			in.writeInterval = -1 // no pacing (tests, GitHub Enterprise without limits)
		}
	}
	if err := a.readBudgets(gha, in); err != nil {
		return nil, err
	}
	in.repository = gctx.Repository
	in.apiURL = gctx.APIURL
	in.eventName = gctx.EventName
	in.event = gctx.Event
	in.workspaceRoot = gctx.Workspace
	if in.workspaceRoot == "" {
		in.workspaceRoot = a.Cwd
	}
	root := orDefault(gha.GetInput("root"), ".")
	in.rootSet = filepath.Clean(root) != "."
	if !filepath.IsAbs(root) {
		root = filepath.Join(in.workspaceRoot, root)
	}
	in.root = filepath.Clean(root)
	if rel, err := filepath.Rel(in.workspaceRoot, in.root); err == nil && !strings.HasPrefix(rel, "..") {
		in.repoPrefix = filepath.ToSlash(rel)
	}
	in.stateBranch = gha.GetInput("state-branch")
	if err := readPeopleInputs(gha, in); err != nil {
		return nil, err
	}
	in.stepSummaryOn = gctx.StepSummary != ""
	switch in.command {
	case "sync", "ingest", "monitor", "digest":
	default:
		return nil, fmt.Errorf("input command: %q is not one of sync, ingest, monitor, digest", in.command)
	}
	if in.repository == "" {
		return nil, fmt.Errorf("GITHUB_REPOSITORY is not set: run agentx-action as a GitHub Action step")
	}
	if in.token == "" && !in.dryRun {
		return nil, fmt.Errorf("input github-token is empty (the default is ${{ github.token }})")
	}
	return in, nil
}

func boolInput(gha *githubactions.Action, name string) (bool, error) {
	v := gha.GetInput(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("input %s: %q is not true or false", name, v)
	}
	return b, nil
}

// runAction runs one action step. Outputs are counts only: go-githubactions
// writes them with a fixed delimiter, and no text from a ledger or a
// comment may ever reach one.
func (a *App) runAction(ctx context.Context) int {
	gha := githubactions.New(githubactions.WithGetenv(a.Getenv), githubactions.WithWriter(a.Stdout))
	if strings.EqualFold(gha.GetInput("command"), "digest") {
		return a.runDigest(ctx, gha) // digest.go
	}
	in, err := a.readInputs(gha)
	if err != nil {
		gha.Errorf("%v", err)
		return 2
	}
	counts, err := a.execute(ctx, gha, in)
	a.report(gha, in, counts)
	a.summaryNoCheckout(gha, in)
	a.reportRun(gha, in) // explain.go: the dry run's plan, the issues left
	if err != nil {
		return a.fail(gha, in, err)
	}
	return 0
}

// config reads the checkout's configuration when there is one: the state
// needs no checkout, and without one every setting has its default (and
// a notice says so).
func (a *App) config(gha *githubactions.Action, in *inputs) (workspace.Workspace, *config.Set, error) {
	ws := workspace.Workspace{Root: in.root}
	if err := checkoutPresent(in); err != nil {
		return ws, nil, err
	}
	a.noteNoCheckout(gha, in) // explain.go
	// A checkout's .agentx/ (or its state or memory) symlinked outside the
	// checkout is not read: its files would be seeded onto the state branch.
	if err := ws.CheckContained(); err != nil {
		return ws, nil, err
	}
	cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		return ws, nil, err
	}
	if in.stateBranch == "" {
		in.stateBranch = orDefault(cfg.Config.GitHub.StateBranch, sync.DefaultStateBranch)
	}
	return ws, cfg, nil
}

// openState reads the state branch, seeding it from the checkout's
// .agentx when it does not exist yet (the first run after GitHub Mode
// kept the state on the default branch).
func (a *App) openState(ctx context.Context, in *inputs, sb *sync.StateBranch, ws workspace.Workspace, warn func(string, ...any)) (*sync.StateSnapshot, error) {
	snap, err := sb.Read(ctx)
	if err != nil || in.dryRun {
		return snap, err
	}
	snap, n, err := sync.Seed(ctx, sb, snap, ws.Root)
	if n > 0 {
		warn("created the state branch %s from the %d state files of the checkout's .agentx; they may now be removed from code branches (see https://github.com/agentx-dev/agentx/blob/main/docs/github-mode.md#migration-from-github-mode-on-the-default-branch)", in.stateBranch, n)
	}
	return snap, err
}

func (a *App) execute(ctx context.Context, gha *githubactions.Action, in *inputs) (sync.Counts, error) {
	ws, cfg, err := a.config(gha, in)
	if err != nil {
		return sync.Counts{}, err
	}
	gh, err := sync.NewClient(sync.ClientConfig{APIURL: in.apiURL, Token: in.token, Repository: in.repository,
		WriteInterval: in.writeInterval, Now: a.Clock.Now, MaxWait: in.maxWait, Debug: a.debugf(gha, in), Log: a.logf})
	if err != nil {
		return sync.Counts{}, err
	}
	warn := func(format string, args ...any) { gha.Warningf(format, args...) }
	syncer := &sync.Syncer{GH: gh, Labels: sync.Labels{Blocked: in.blocked, Escalated: in.escalated}, Bot: in.bot,
		Clean: Clean, Mention: sync.PersonMentions(cfg), DryRun: in.dryRun, Full: in.full, Warn: warn, Budget: in.budget, Debug: a.debugf(gha, in), Workflows: cfg}
	a.syncer = syncer
	if in.command == "ingest" {
		return a.ingest(ctx, in, gh, syncer, ws, cfg, warn)
	}
	if in.command == "sync" && !in.full && pushTouchesNoLedger(in) {
		fmt.Fprintf(a.Stderr, "agentx-action sync: the push of %s changed no ledger, nothing to mirror\n", in.stateBranch)
		return syncer.Counts, nil
	}
	sb := sync.NewStateBranch(gh, in.stateBranch)
	if in.command == "sync" {
		// One call: the tip is this action's own record of a complete
		// mirror, so no ledger changed since.
		upToDate, err := syncer.UpToDate(ctx, sb)
		if err != nil {
			return syncer.Counts, err
		}
		if upToDate {
			fmt.Fprintf(a.Stderr, "agentx-action sync: %s has not changed since it was mirrored\n", in.stateBranch)
			return syncer.Counts, nil
		}
	}
	var snap *sync.StateSnapshot
	var st *sync.State
	if in.command == "monitor" {
		// The tip is the last complete mirror: two calls, no tree read.
		if snap, st, err = syncer.QuickSnapshot(ctx, sb); err != nil {
			return syncer.Counts, err
		}
	}
	if snap == nil {
		if snap, err = a.openState(ctx, in, sb, ws, warn); err != nil {
			return syncer.Counts, err
		}
	}
	if in.command == "monitor" {
		if snap, err = a.monitor(ctx, in, gh, sb, snap, st, syncer, cfg, warn); err != nil {
			return syncer.Counts, err
		}
	}
	// A sync or monitor that read the branch in full records its mirror
	// even with nothing new, so the next runs cost one call.
	syncer.MarkMirrored = true
	err = syncer.RunBranch(ctx, sb, snap)
	return syncer.Counts, err
}

// monitor sweeps for commands no ingest run answered (a late answer must
// count before the check escalates for want of it), then checks the
// ledgers the sync state cannot vouch for, on the branch as read once.
func (a *App) monitor(ctx context.Context, in *inputs, gh *sync.Client, sb *sync.StateBranch, snap *sync.StateSnapshot, st *sync.State,
	syncer *sync.Syncer, cfg *config.Set, warn func(string, ...any)) (*sync.StateSnapshot, error) {
	if st == nil {
		data, err := sb.ReadFile(ctx, snap, sync.SyncStatePath)
		if err != nil {
			return snap, err
		}
		st = sync.ParseState(data)
	}
	applied := syncer.Counts.CommandsApplied
	if err := a.sweep(ctx, in, gh, sb, st, syncer, cfg, warn); err != nil {
		return snap, err
	}
	if syncer.Counts.CommandsApplied > applied {
		snap = nil // the sweep's commands moved the branch: check it as it is now
	}
	syncer.Reconcile = in.reconcile
	syncer.RunNumber, _ = strconv.Atoi(a.Getenv("GITHUB_RUN_NUMBER"))
	m := &sync.Monitor{State: sb, Config: cfg, Clock: a.Clock, DryRun: in.dryRun, Warn: warn, Start: snap, Cache: st}
	next, err := m.Run(ctx)
	a.monitorRead, a.monitorSkipped = m.Read, m.Skipped
	syncer.Learned = m.Learned
	return next, err
}

func (a *App) ingest(ctx context.Context, in *inputs, gh *sync.Client, syncer *sync.Syncer, ws workspace.Workspace, cfg *config.Set, warn func(string, ...any)) (sync.Counts, error) {
	if in.eventName != "" && in.eventName != "issue_comment" {
		warn("ingest runs on issue_comment events; this is %s, nothing to do", in.eventName)
		return sync.Counts{}, nil
	}
	raw, err := json.Marshal(in.event)
	if err != nil {
		return sync.Counts{}, err
	}
	ev, err := sync.ParseEvent(raw)
	if err != nil {
		return sync.Counts{}, err
	}
	sb := sync.NewStateBranch(gh, in.stateBranch)
	// The branch is read only for a comment that is a command (and seeded
	// then when it is missing): other comments cost no state read.
	open := func(ctx context.Context) (*sync.StateSnapshot, error) { return a.openState(ctx, in, sb, ws, warn) }
	ing := &sync.Ingester{GH: gh, Config: cfg, State: sb, Open: open, Bot: in.bot,
		Associations: in.associations, Users: in.users, MinPermission: in.minPermission, ReplyToOutsiders: in.replyToOutsiders,
		Clock: a.Clock, Clean: Clean, DryRun: in.dryRun, Syncer: syncer, Warn: warn}
	// A re-run of the job (Re-run jobs) reads the reactions before 👀.
	attempt, _ := strconv.Atoi(a.Getenv("GITHUB_RUN_ATTEMPT"))
	ing.Rerun = attempt > 1
	out, err := ing.Run(ctx, ev)
	counts := ing.Counts
	counts.Add(syncer.Counts)
	if out.Rejected != "" {
		warn("command on issue #%d rejected (see the reply on the issue)", ev.Issue.Number)
	}
	return counts, err
}

// pushTouchesNoLedger reports whether the run is a push of the state
// branch whose commits, as the event lists them, changed no ledger (the
// common push: an agent's hook finish with memory only). Such a sync costs
// no API call. A push the event cannot vouch for (a new or forced branch,
// a commit list GitHub cut at 2,048) is synced in full.
func pushTouchesNoLedger(in *inputs) bool {
	if in.eventName != "push" || in.event["ref"] != "refs/heads/"+in.stateBranch {
		return false
	}
	raw, err := json.Marshal(in.event)
	if err != nil {
		return false
	}
	var ev struct {
		Created, Forced, Deleted bool
		Commits                  []struct{ Added, Modified, Removed []string }
	}
	if json.Unmarshal(raw, &ev) != nil || ev.Created || ev.Forced || ev.Deleted || len(ev.Commits) == 0 || len(ev.Commits) >= 2048 {
		return false
	}
	for _, c := range ev.Commits {
		for _, list := range [][]string{c.Added, c.Modified, c.Removed} {
			for _, p := range list {
				if strings.HasPrefix(p, "state/clarifications/") || strings.HasPrefix(p, "state/artifacts/") {
					return false
				}
			}
		}
	}
	return true
}

// report writes the outputs (counts only) and the step summary.
func (a *App) report(gha *githubactions.Action, in *inputs, c sync.Counts) {
	rows := []struct {
		name string
		n    int
	}{
		{"issues-synced", c.IssuesSynced},
		{"comments-created", c.CommentsCreated},
		{"comments-updated", c.CommentsUpdated},
		{"comments-deleted", c.CommentsDeleted},
		{"labels-added", c.LabelsAdded},
		{"labels-removed", c.LabelsRemoved},
		{"commands-applied", c.CommandsApplied},
		{"commands-rejected", c.CommandsRejected},
		{"commands-swept", c.CommandsSwept},
		{"issues-reconciled", c.IssuesReconciled},
		{"issues-repaired", c.IssuesRepaired},
	}
	var b strings.Builder
	title := "agentx " + in.command
	if in.dryRun {
		title += " (dry run: nothing written)"
	}
	fmt.Fprintf(&b, "### %s\n\n| | count |\n|---|---:|\n", title)
	for _, r := range rows {
		gha.SetOutput(r.name, strconv.Itoa(r.n))
		fmt.Fprintf(&b, "| %s | %d |\n", r.name, r.n)
	}
	fmt.Fprintf(&b, "| issues-unchanged | %d |\n", c.IssuesUnchanged)
	if in.command == "monitor" {
		b.WriteString(a.monitorBudget(in))
	}
	if in.stepSummaryOn {
		gha.AddStepSummary(b.String())
	}
	fmt.Fprintf(a.Stderr, "agentx-action %s: %d comments created, %d updated, %d deleted, %d labels added, %d removed, %d commands applied, %d rejected\n",
		in.command, c.CommentsCreated, c.CommentsUpdated, c.CommentsDeleted, c.LabelsAdded, c.LabelsRemoved, c.CommandsApplied, c.CommandsRejected)
}

// monitorBudget states what the monitor read and its reconcile budget:
// the ledgers the sync state vouched for were not read, and the drift
// check covers a slice of issues per run, in rotation.
func (a *App) monitorBudget(in *inputs) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nLedgers read by the check: %d (%d not read: unchanged since recorded, nothing due).\n", a.monitorRead, a.monitorSkipped)
	s := a.syncer
	if s == nil || in.reconcile == 0 || s.ReconcileOf == 0 {
		b.WriteString("Reconcile: off (reconcile-per-run: 0).\n")
		return b.String()
	}
	ids := make([]string, len(s.ReconcileSlice))
	for i, n := range s.ReconcileSlice {
		ids[i] = "#" + strconv.Itoa(n)
	}
	fmt.Fprintf(&b, "Reconcile budget: %d of %d issues per run (%d API calls when in order, 3 more and the repairs for one that drifted); this run checked %s; every issue is checked within %d runs.\n",
		len(s.ReconcileSlice), s.ReconcileOf, 2*len(s.ReconcileSlice), strings.Join(ids, ", "), (s.ReconcileOf+in.reconcile-1)/in.reconcile)
	return b.String()
}
