// Package synth generates synthetic clarification ledgers (years of
// resolved history plus a few open questions) for measuring the monitor
// and the hooks at scale. Open records never form a cycle and are within
// their SLA, so a check over a generated workspace measures the scan and
// detection alone (no actions), run after run.
package synth

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Options size a workspace.
type Options struct {
	Issues  int       // ledgers (issues 1..Issues)
	Records int       // records in all (at least one per issue)
	Open    int       // of which open (pending or answered), at most one per issue
	Seed    uint64    // the same seed gives the same files
	Now     time.Time // open records are due an hour after Now
}

// upstream-first order: an open record always asks an agent earlier in this
// list, so the wait-for graph has no cycle.
var agents = []string{"product-manager", "architect", "ux-designer", "engineer", "reviewer", "tester"}

var topics = []string{"authentication flow", "session storage", "rate limits", "export scope", "retry policy", "cache keys",
	"error messages", "API versioning", "migration plan", "logging format", "feature flags", "upload size limit"}

var questions = []string{
	"Should %s live in the middleware or in each controller?",
	"Which limit applies to %s for the public API?",
	"Do we keep backwards compatibility for %s in v2?",
	"Is %s allowed to block the request path, or must it be async?",
	"Who owns %s after the migration, platform or product?",
}

var answers = []string{
	"Keep %s in the middleware; controllers read the verified claims from the context (ADR-7).",
	"Use the documented default for %s and make it configurable per tenant.",
	"Yes for one release, then remove the old %s with a deprecation notice.",
	"It must be async: queue %s and return 202 with a status URL.",
}

// Write writes the ledgers of a workspace rooted at root.
func Write(root string, o Options) error {
	if o.Issues < 1 || o.Records < o.Issues || o.Open > o.Issues {
		return fmt.Errorf("need issues >= 1, records >= issues, open <= issues (got %d, %d, %d)", o.Issues, o.Records, o.Open)
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	ws := workspace.Workspace{Root: root}
	dir := ws.ClarificationsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	// Spread open records evenly over the issues, the rest of the records
	// round-robin.
	openEvery := 0
	if o.Open > 0 {
		openEvery = o.Issues / o.Open
	}
	perIssue := make([]int, o.Issues)
	for i := 0; i < o.Records; i++ {
		perIssue[i%o.Issues]++
	}
	opened := 0
	for i := 0; i < o.Issues; i++ {
		issue := i + 1
		l := ledger.Ledger{IssueNumber: issue}
		for seq := 1; seq <= perIssue[i]; seq++ {
			open := openEvery > 0 && opened < o.Open && i%openEvery == 0 && seq == perIssue[i]
			if open {
				opened++
			}
			l.Clarifications = append(l.Clarifications, record(rng, issue, seq, open, o.Now))
		}
		data, err := jsonfile.Marshal(&l)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("issue-%d.json", issue)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func record(rng *rand.Rand, issue, seq int, open bool, now time.Time) ledger.Record {
	ti := rng.IntN(len(agents)-1) + 1
	to := agents[rng.IntN(ti)]
	from := agents[ti]
	topic := topics[rng.IntN(len(topics))]
	created := now.Add(-time.Duration(rng.IntN(3*365*24)) * time.Hour)
	if open {
		created = now.Add(-time.Duration(rng.IntN(20)+1) * time.Minute)
	}
	ts := func(d time.Duration) string { return clock.Format(created.Add(d)) }
	r := ledger.Record{
		ID: fmt.Sprintf("CLR-%d-%03d", issue, seq), IssueNumber: issue, From: from, To: to, Topic: topic,
		Blocking: rng.IntN(2) == 0, Round: 1, MaxRounds: 5, Created: ts(0), StaleAfter: ts(30 * time.Minute),
	}
	r.SetExtra("slaMinutes", json.RawMessage(strconv.Itoa(30)))
	r.Seal() // as protocol's request does
	rounds := 1 + rng.IntN(2)
	if open {
		rounds = 1
		r.StaleAfter = clock.Format(now.Add(time.Hour))
	}
	for round := 1; round <= rounds; round++ {
		q := fmt.Sprintf(questions[(rng.IntN(len(questions))+round)%len(questions)], topic)
		r.Thread = append(r.Thread, ledger.Entry{Round: round, From: from, Type: ledger.Question, Body: q, Timestamp: ts(time.Duration(round) * time.Minute)}.Sealed())
		r.Round = round
		if open && rng.IntN(2) == 0 {
			break // pending: no answer yet
		}
		a := fmt.Sprintf(answers[rng.IntN(len(answers))], topic)
		r.Thread = append(r.Thread, ledger.Entry{Round: round, From: to, Type: ledger.Answer, Body: a, Timestamp: ts(time.Duration(round)*time.Minute + 30*time.Second)}.Sealed())
	}
	switch {
	case open && r.Thread[len(r.Thread)-1].Type == ledger.Answer:
		r.Status = ledger.Answered
	case open:
		r.Status = ledger.Pending
	default:
		r.Status = ledger.Resolved
		at := ts(10 * time.Minute)
		r.ResolvedAt = &at
		r.Thread = append(r.Thread, ledger.Entry{Round: r.Round, From: from, Type: ledger.Resolution, Body: "Going with that.", Timestamp: at}.Sealed())
	}
	return r
}
