package hookcmd

import (
	"context"
	"fmt"
	"time"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/router"
)

// A blocking question to a person waits as long as its SLA says (issue
// 34): a person answers in hours, not in an agent's 30 minutes, and an
// agent told "blocking" must really wait for them. The CLI polls the
// ledger (a person answers from another terminal, or on GitHub through a
// sync) and prints progress on stderr; Ctrl-C or the SLA ends the wait
// and the question stays open.

// clarifyPoll is how often a waiting request reads its ledger, and
// clarifyProgress how often it says it still waits.
const (
	clarifyPoll     = 500 * time.Millisecond
	clarifyProgress = time.Minute
)

// waitSyncEvery is how often a wait in GitHub Mode pulls the state
// branch, where a person's answer by comment lands: twenty times per wait,
// at least every 30 s and at most every second (a fetch each time).
func waitSyncEvery(limit time.Duration) time.Duration {
	return min(max(limit/20, time.Second), 30*time.Second)
}

// waitLimit is how long a request waits for its answer: --wait when
// given, else the SLA of a blocking question to a person, else not at all
// (an agent's answer comes from its responder or its next session).
func waitLimit(o *clarifyRequestOptions, rec *ledger.Record) time.Duration {
	if o.Wait != nil {
		return *o.Wait
	}
	if _, person := ledger.PersonTarget(rec.To); person && rec.Blocking {
		return protocol.SLA(rec)
	}
	return 0
}

// waitForAnswer polls the record until it is answered (or closed or
// escalated by someone) or limit passes, and returns it as it was last
// read, with whether the wait ended unanswered.
func (a *App) waitForAnswer(ctx context.Context, rt *router.Router, rec ledger.Record, limit time.Duration) (*router.Result, bool, error) {
	start := time.Now()
	// Progress goes out as it happens, not held to the end with the
	// command's other messages (failFirst).
	stderr := a.Stderr
	if a.liveStderr != nil {
		stderr = a.liveStderr
	}
	fmt.Fprintf(stderr, "%s: waiting for %s's answer (up to %s; Ctrl-C stops waiting, the question stays open)\n",
		rec.ID, rec.To, roundDuration(limit))
	poll, progress := clarifyPoll, clarifyProgress
	if a.waitPoll > 0 {
		poll = a.waitPoll
	}
	if a.waitProgress > 0 {
		progress = a.waitProgress
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	lastNote := start
	// In GitHub Mode the question goes to the state branch at once (the
	// Action mirrors it to the issue, mentioning the person) and the
	// answer comes back from it: pushed now, pulled every waitSyncEvery.
	github := a.githubMode()
	if github {
		a.StatePush(ctx, 0)
	}
	lastSync := time.Now()
	for {
		if github && time.Since(lastSync) >= waitSyncEvery(limit) {
			lastSync = time.Now()
			a.StatePull(ctx, 0)
		}
		cur, err := rt.Get(rec.ID)
		if err != nil {
			return nil, false, err
		}
		if !cur.Status.Waiting() {
			res := &router.Result{Record: *cur}
			if e := cur.LastOf(ledger.Answer); e != nil && cur.Status == ledger.Answered {
				res.Answer = e.Body
			}
			return res, false, nil
		}
		waited := time.Since(start)
		if waited >= limit {
			fmt.Fprintf(stderr, "%s: no answer from %s within %s; it stays open: `agentx-hook clarify show %s` later\n",
				rec.ID, rec.To, roundDuration(limit), rec.ID)
			return &router.Result{Record: *cur}, true, nil
		}
		if time.Since(lastNote) >= progress {
			lastNote = time.Now()
			fmt.Fprintf(stderr, "%s: still waiting for %s (%s of %s)\n", rec.ID, rec.To, roundDuration(waited), roundDuration(limit))
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(stderr, "%s: stopped waiting after %s; it stays open: `agentx-hook clarify show %s` later\n",
				rec.ID, roundDuration(waited), rec.ID)
			return &router.Result{Record: *cur}, true, ctx.Err()
		case <-tick.C:
		}
	}
}

// githubMode reports whether the workspace syncs through the state branch.
func (a *App) githubMode() bool {
	cfg, err := a.Config()
	return err == nil && cfg.Config.Mode == "github"
}

// printAnswered prints the answer a wait brought (the id was printed
// when the request landed).
func (a *App) printAnswered(res *router.Result) {
	rec := &res.Record
	if res.Answer != "" {
		by := rec.To
		if e := rec.LastOf(ledger.Answer); e != nil {
			by = e.From
		}
		fmt.Fprintf(a.Stdout, "%s answered (round %d):\n%s\n", by, rec.Round, res.Answer)
		return
	}
	fmt.Fprintf(a.Stdout, "%s is %s\n", rec.ID, a.Style().StatusTag(rec.Status))
}

func roundDuration(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Minute).String()
	}
	return d.Round(time.Second).String()
}

// parseWait reads --wait: a duration from 0 to the longest SLA.
func parseWait(s string) (*time.Duration, error) {
	if s == "" {
		return nil, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > config.MaxSLAMinutes*time.Minute {
		return nil, usagef("--wait %q must be a duration from 0 (return at once) to %dh, such as 30m or 4h", s, config.MaxSLAMinutes/60)
	}
	return &d, nil
}
