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
	"github.com/agentx-dev/agentx/internal/core/ledger"
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
	branch        string
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
}

// Clean is the egress sanitiser: the core's (secrets and <private> out,
// size capped) and then @mentions neutralised, so a mirror pings nobody.
func Clean(s string) string { return sanitize.Mentions(sanitize.Text(s)) }

func splitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		out = append(out, f)
	}
	return out
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
	in.repository = gctx.Repository
	in.apiURL = gctx.APIURL
	in.eventName = gctx.EventName
	in.event = gctx.Event
	in.workspaceRoot = gctx.Workspace
	if in.workspaceRoot == "" {
		in.workspaceRoot = a.Cwd
	}
	root := orDefault(gha.GetInput("root"), ".")
	if !filepath.IsAbs(root) {
		root = filepath.Join(in.workspaceRoot, root)
	}
	in.root = filepath.Clean(root)
	if rel, err := filepath.Rel(in.workspaceRoot, in.root); err == nil && !strings.HasPrefix(rel, "..") {
		in.repoPrefix = filepath.ToSlash(rel)
	}
	in.branch = gha.GetInput("branch")
	if in.branch == "" {
		if b, ok := strings.CutPrefix(gctx.Ref, "refs/heads/"); ok {
			in.branch = b
		}
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
	if err != nil {
		gha.Errorf("%s failed: %v", in.command, err)
		return 1
	}
	return 0
}

func (a *App) execute(ctx context.Context, gha *githubactions.Action, in *inputs) (sync.Counts, error) {
	gh, err := sync.NewClient(sync.ClientConfig{APIURL: in.apiURL, Token: in.token, Repository: in.repository,
		WriteInterval: in.writeInterval, Now: a.Clock.Now})
	if err != nil {
		return sync.Counts{}, err
	}
	warn := func(format string, args ...any) { gha.Warningf(format, args...) }
	syncer := &sync.Syncer{GH: gh, Labels: sync.Labels{Blocked: in.blocked, Escalated: in.escalated}, Bot: in.bot,
		Clean: Clean, DryRun: in.dryRun, Full: in.full, Warn: warn}
	ws := workspace.Workspace{Root: in.root}
	switch in.command {
	case "ingest":
		return a.ingest(ctx, in, gh, syncer, ws, warn)
	case "monitor":
		if err := a.monitor(ctx, in, gh, ws, warn); err != nil {
			return syncer.Counts, err
		}
	}
	err = a.syncAll(ctx, in, gh, syncer, ws)
	return syncer.Counts, err
}

func (a *App) syncAll(ctx context.Context, in *inputs, gh *sync.Client, syncer *sync.Syncer, ws workspace.Workspace) error {
	store := &ledger.Store{WS: ws, Locks: a.Locks()}
	loaded, err := store.LoadAll()
	if err != nil {
		return err
	}
	state := &sync.RemoteState{GH: gh, Path: sync.RepoPath(in.repoPrefix, sync.StateFile), Branch: in.branch,
		LocalFile: filepath.Join(ws.Root, filepath.FromSlash(sync.StateFile))}
	st, err := state.Load(ctx)
	if err != nil {
		return err
	}
	runErr := syncer.Run(ctx, loaded, st)
	if in.dryRun {
		return runErr
	}
	// Save what did land even when the run stopped half way: the next run
	// then rereads only the issues this one did not finish.
	// A cancelled run (the runner's SIGTERM) still records its progress.
	saveCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := state.Save(saveCtx, st); err != nil && runErr == nil {
		return fmt.Errorf("save sync state: %w", err)
	}
	return runErr
}

func (a *App) ingest(ctx context.Context, in *inputs, gh *sync.Client, syncer *sync.Syncer, ws workspace.Workspace, warn func(string, ...any)) (sync.Counts, error) {
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
	cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		return sync.Counts{}, err
	}
	ing := &sync.Ingester{GH: gh, Config: cfg, RepoPrefix: in.repoPrefix, Branch: in.branch, Bot: in.bot,
		Associations: in.associations, Users: in.users, Clock: a.Clock, Clean: Clean, DryRun: in.dryRun,
		Syncer: syncer, Warn: warn}
	out, err := ing.Run(ctx, ev)
	counts := ing.Counts
	counts.Add(syncer.Counts)
	if out.Rejected != "" {
		warn("command on issue #%d rejected (see the reply on the issue)", ev.Issue.Number)
	}
	return counts, err
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
	if in.stepSummaryOn {
		gha.AddStepSummary(b.String())
	}
	fmt.Fprintf(a.Stderr, "agentx-action %s: %d comments created, %d updated, %d deleted, %d labels added, %d removed, %d commands applied, %d rejected\n",
		in.command, c.CommentsCreated, c.CommentsUpdated, c.CommentsDeleted, c.LabelsAdded, c.LabelsRemoved, c.CommandsApplied, c.CommandsRejected)
}

// monitor runs the core monitor on the checkout and commits what it
// changed; the sync that follows mirrors the escalations.
func (a *App) monitor(ctx context.Context, in *inputs, gh *sync.Client, ws workspace.Workspace, warn func(string, ...any)) error {
	cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		return err
	}
	m := &sync.Monitor{GH: gh, WS: ws, Locks: a.Locks(), Config: cfg, Clock: a.Clock, RepoPrefix: in.repoPrefix, Branch: in.branch,
		DryRun: in.dryRun, Warn: warn}
	return m.Run(ctx)
}
