package actioncmd

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/agentx-dev/agentx/internal/core/digest"
	"github.com/agentx-dev/agentx/internal/sync"
)

// digestSource is where the Action reads the digest's input from: the
// state branch (ledgers, memory issue files and the weekly metrics files
// of the weeks whose midpoint the window or the one before may hold),
// with no checkout needed. The event
// log is local to each machine and not on the branch.
func (a *App) digestSource(sb *sync.StateBranch, w digest.Window, warn func(format string, args ...any)) digest.Source {
	return &sync.BranchSource{State: sb, Warn: warn, MetricsSince: w.Since.Add(-w.Until.Sub(w.Since) - 4*24*time.Hour)}
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
		if days, err = strconv.Atoi(v); err != nil || days < 1 || days > digest.MaxDays {
			gha.Errorf("input days: %q is not a whole number of days from 1 to %d", v, digest.MaxDays)
			return 2
		}
	}
	_, cfg, err := a.config(gha, in)
	if err != nil {
		gha.Errorf("digest failed: %v", err)
		return 1
	}
	gh, err := sync.NewClient(sync.ClientConfig{APIURL: in.apiURL, Token: in.token, Repository: in.repository,
		WriteInterval: in.writeInterval, Now: a.Clock.Now})
	if err != nil {
		gha.Errorf("digest failed: %v", err)
		return 1
	}
	warn := gha.Warningf
	w := digest.LastDays(a.Clock.Now(), days)
	input, err := digest.Load(ctx, a.digestSource(sync.NewStateBranch(gh, in.stateBranch), w, warn), cfg.KnownAgents())
	if err != nil {
		gha.Errorf("digest failed: %v", err)
		return 1
	}
	input.Workflows = cfg // each issue's stage from its artifacts
	// The review figures fail open: the digest says they are not available.
	input.Reviews = gh.ReviewsClosed(ctx, w.Since, w.Until)
	if input.Reviews.Err != "" {
		gha.Warningf("digest: review figures not available: %s", input.Reviews.Err)
	}
	server := strings.TrimRight(orDefault(a.Getenv("GITHUB_SERVER_URL"), "https://github.com"), "/")
	rep := digest.Compute(input, digest.Options{Since: w.Since, Until: w.Until, Now: a.Clock.Now(),
		IssueURL: func(n int) string { return fmt.Sprintf("%s/%s/issues/%d", server, in.repository, n) }})
	rep.Week = digestWeek(w.Until)
	text := digest.Markdown(rep, Clean)
	if in.stepSummaryOn {
		gha.AddStepSummary(text)
	}
	a.summaryNoCheckout(gha, in)
	digestOutputs(gha, rep)
	if in.dryRun {
		fmt.Fprintf(a.Stderr, "agentx-action digest %s: dry run, no issue written\n", rep.Week)
		return 0
	}
	post, err := gh.PostDigest(ctx, sync.DigestLabel, "AgentX digest "+rep.Week, text)
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

// digestWeek names the digest of a run at until: the ISO week before the
// one the run falls in ("2026-W47" for any run from Monday 00:00 of
// 2026-W48 to the Sunday after). Every run of a week, the scheduled Monday
// one and any manual re-run up to Sunday, names the same week and so edits
// the same issue; the core's name (the window's midpoint) changed on
// Thursday at noon.
func digestWeek(until time.Time) string {
	y, n := until.UTC().AddDate(0, 0, -7).ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, n)
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
