package actioncmd

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/digest"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
	"github.com/agentx-dev/agentx/internal/sync"
)

// digestSource is where the Action reads the digest's input from.
//
// It is the checkout for now (digest.Local over the workspace the workflow
// checked out, which in GitHub Mode should be the state branch: see
// examples/workflows/agentx-digest.yml). A Source reading the state branch
// through the API (ledgers and memory files of the branch's tree) replaces
// it here, and nothing else changes.
func (a *App) digestSource(ws workspace.Workspace, warn func(error)) digest.Source {
	locks := lock.New(lock.Options{Clock: a.Clock})
	return &digest.Local{WS: ws, Store: memory.New(ws.MemoryDir(), locks, a.Clock),
		Log: &events.Log{Path: ws.EventsFile(), Locks: locks, Clock: a.Clock}, Warn: warn}
}

// runDigest computes the digest of the last `days` days, writes it as the
// step summary and as the week's digest issue, and sets the headline
// figures as outputs (numbers only: no ledger text reaches an output).
func (a *App) runDigest(ctx context.Context, gha *githubactions.Action) int {
	in, err := a.readInputs(gha)
	if err != nil {
		gha.Errorf("%v", err)
		return 2
	}
	days := 7
	if v := gha.GetInput("days"); v != "" {
		if days, err = strconv.Atoi(v); err != nil || days < 1 {
			gha.Errorf("input days: %q is not a whole number of days (1 or more)", v)
			return 2
		}
	}
	ws := workspace.Workspace{Root: in.root}
	cfg, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		gha.Errorf("digest failed: %v", err)
		return 1
	}
	warn := func(err error) { gha.Warningf("digest leaves out a ledger that does not parse: %v", err) }
	input, err := digest.Load(ctx, a.digestSource(ws, warn), cfg.KnownAgents())
	if err != nil {
		gha.Errorf("digest failed: %v", err)
		return 1
	}
	w := digest.LastDays(a.Clock.Now(), days)
	server := strings.TrimRight(orDefault(a.Getenv("GITHUB_SERVER_URL"), "https://github.com"), "/")
	rep := digest.Compute(input, digest.Options{Since: w.Since, Until: w.Until, Now: a.Clock.Now(),
		IssueURL: func(n int) string { return fmt.Sprintf("%s/%s/issues/%d", server, in.repository, n) }})
	text := digest.Markdown(rep, Clean)
	if in.stepSummaryOn {
		gha.AddStepSummary(text)
	}
	digestOutputs(gha, rep)
	if in.dryRun {
		fmt.Fprintf(a.Stderr, "agentx-action digest %s: dry run, no issue written\n", rep.Week)
		return 0
	}
	gh, err := sync.NewClient(sync.ClientConfig{APIURL: in.apiURL, Token: in.token, Repository: in.repository,
		WriteInterval: in.writeInterval, Now: a.Clock.Now})
	if err != nil {
		gha.Errorf("digest failed: %v", err)
		return 1
	}
	post, err := gh.PostDigest(ctx, sync.DigestLabel, digest.Title(rep.Window), text)
	if err != nil {
		gha.Errorf("digest failed: %v", err)
		return 1
	}
	gha.SetOutput("digest-issue", strconv.Itoa(post.Issue))
	verb := "updated"
	if post.Created {
		verb = "opened"
	}
	fmt.Fprintf(a.Stderr, "agentx-action digest %s: %s issue #%d\n", rep.Week, verb, post.Issue)
	return 0
}

// digestOutputs sets the headline figures. Rates are percentages; a figure
// without data (nothing settled in the window) is left unset.
func digestOutputs(gha *githubactions.Action, rep *digest.Report) {
	f := rep.Current
	ints := []struct {
		name string
		n    int
	}{
		{"digest-opened", f.Opened}, {"digest-settled", f.Settled}, {"digest-escalated", f.Escalated},
		{"digest-still-open", f.StillOpen}, {"digest-stale", f.Stale}, {"digest-deadlocks", f.Deadlocks},
		{"digest-escalations-waiting", len(rep.Escalations)}, {"digest-observations-stored", f.Memory.Stored},
	}
	for _, o := range ints {
		gha.SetOutput(o.name, strconv.Itoa(o.n))
	}
	for _, o := range []struct {
		name  string
		v     *float64
		scale float64
	}{
		{"digest-auto-resolution-rate", f.AutoResolutionRate, 100},
		{"digest-escalation-rate", f.EscalationRate, 100},
		{"digest-average-rounds", f.AverageRounds, 1},
	} {
		if o.v != nil {
			gha.SetOutput(o.name, strconv.FormatFloat(math.Round(*o.v*o.scale*100)/100, 'f', -1, 64))
		}
	}
}
