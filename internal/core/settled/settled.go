// Package settled turns a resolved clarification into memory (seed 002
// §11's thread compaction: "summary replaces full thread post-resolution").
// Observation is the pure half: a resolved record gives one `decision`
// observation with its provenance (the CLR id, rounds, who asked, who
// answered, who resolved it and when), the question and the decision
// condensed within an observation's size limit and sanitised like any
// capture. Its id is derived from the record's, so storing it twice, from
// the resolve itself and again from a catch-up after a crash or a
// resolution that came in through GitHub, keeps one observation.
//
// The package sits across both halves: it reads a ledger record and
// writes through the memory store, which the halves may not do for each
// other. The router calls Remember after a resolve (its Settled hook,
// wired by the commands), and `hook start` calls CatchUp for the agent's
// issue.
package settled

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// Field is the observation key holding the provenance (Provenance): other
// tools keep it as an unknown key.
const Field = "clarification"

// The parts of the content are cut to these many characters so the whole
// stays within sanitize.MaxChars (2,000) with the provenance line.
const (
	maxQuestion = 600
	maxDecision = 900
	maxAnswer   = 300
	maxTopic    = 80
)

// defaultResolution is what `clarify resolve` records without --body: it
// says nothing, so the decision is the last answer.
const defaultResolution = "Resolved."

// Provenance is where a decision came from, stored with it.
type Provenance struct {
	ID         string   `json:"id"`
	Topic      string   `json:"topic"`
	Rounds     int      `json:"rounds"`
	AskedBy    string   `json:"askedBy"`
	AskedOf    string   `json:"askedOf"`
	AnsweredBy []string `json:"answeredBy"`
	ResolvedBy string   `json:"resolvedBy"`
	ResolvedAt string   `json:"resolvedAt"`
}

// ID is the decision observation's id for a record: the reference form
// (obs-{agent}-{issue}-{ms}-{6 chars}), from what never changes once the
// record exists (requester, issue, creation time, the CLR id), so every
// clone that stores it derives the same id and the state merge keeps one.
func ID(rec *ledger.Record) string {
	var agent strings.Builder
	for _, c := range strings.ToLower(rec.From) {
		if ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') {
			agent.WriteRune(c)
			if agent.Len() == 20 {
				break
			}
		}
	}
	ms := int64(0)
	if t := rec.CreatedTime(); !t.IsZero() {
		ms = t.UnixMilli()
	}
	sum := sha256.Sum256([]byte("agentx-settled\x00" + rec.ID))
	tail := new(big.Int).SetBytes(sum[:]).Text(36)
	for len(tail) < 6 {
		tail = "0" + tail
	}
	return fmt.Sprintf("obs-%s-%d-%d-%s", agent.String(), rec.IssueNumber, ms, tail[:6])
}

// Observation is the decision a resolved record leaves in memory; ok is
// false for a record that is not resolved (abandoned, still open): only a
// settled question is a decision.
func Observation(rec *ledger.Record) (obs memory.Observation, ok bool) {
	if rec.Status != ledger.Resolved {
		return memory.Observation{}, false
	}
	p := provenance(rec)
	question := ""
	if q := firstOf(rec, ledger.Question); q != nil {
		question = clean(q.Body)
	}
	answer := ""
	if a := rec.LastOf(ledger.Answer); a != nil {
		answer = clean(a.Body)
	}
	decision := ""
	if r := rec.LastOf(ledger.Resolution); r != nil {
		decision = clean(r.Body)
	}
	// A bare "Resolved." settles on the last answer: that is the decision.
	viaAnswer := false
	if decision == "" || decision == defaultResolution {
		decision, viaAnswer = answer, true
	}
	if decision == "" {
		decision = "resolved without a stated decision"
	}
	topic := shorten.Line(clean(rec.Topic), maxTopic)

	var b strings.Builder
	fmt.Fprintf(&b, "%s settled (%s): %s\n", rec.ID, topic, shorten.Text(decision, maxDecision))
	fmt.Fprintf(&b, "%s asked %s; %d round(s); answered by %s; resolved by %s at %s.\n",
		p.AskedBy, p.AskedOf, p.Rounds, orNobody(p.AnsweredBy), orNobody([]string{p.ResolvedBy}), p.ResolvedAt)
	if question != "" {
		fmt.Fprintf(&b, "Question: %s\n", shorten.Text(question, maxQuestion))
	}
	if answer != "" && !viaAnswer {
		fmt.Fprintf(&b, "Last answer: %s\n", shorten.Text(answer, maxAnswer))
	}
	content := sanitize.Text(strings.TrimRight(b.String(), "\n"))
	// The one line recall shows: the id to look it up by and the decision.
	summary := shorten.Line(fmt.Sprintf("%s settled (%s): %s", rec.ID, topic, decision), memory.MaxSummary)

	raw, err := json.Marshal(p)
	if err != nil { // a struct of strings and ints: cannot fail
		panic(err)
	}
	obs = memory.Observation{
		ID: ID(rec), Agent: rec.From, IssueNumber: rec.IssueNumber, Category: memory.Decision,
		Content: content, Summary: sanitize.Text(summary), Tokens: memory.EstimateTokens(content),
		Timestamp: p.ResolvedAt, Extra: []jsonfile.Field{{Key: Field, Value: raw}},
	}
	return obs, true
}

func provenance(rec *ledger.Record) Provenance {
	p := Provenance{ID: rec.ID, Topic: sanitize.Clean(rec.Topic), Rounds: rec.Round, AskedBy: rec.From, AskedOf: rec.To, AnsweredBy: []string{}}
	if p.Rounds < 1 {
		p.Rounds = 1
	}
	seen := map[string]bool{}
	for _, e := range rec.Thread {
		if e.Type == ledger.Answer && !seen[e.From] {
			seen[e.From] = true
			p.AnsweredBy = append(p.AnsweredBy, e.From)
		}
	}
	if r := rec.LastOf(ledger.Resolution); r != nil {
		p.ResolvedBy = r.From
	}
	if rec.ResolvedAt != nil {
		p.ResolvedAt = *rec.ResolvedAt
	} else if r := rec.LastOf(ledger.Resolution); r != nil {
		p.ResolvedAt = r.Timestamp
	}
	if _, err := clock.Parse(p.ResolvedAt); err != nil {
		p.ResolvedAt = clock.Format(rec.CreatedTime().UTC().Truncate(time.Millisecond))
	}
	return p
}

// clean is a thread body as memory may hold it: private regions and
// secrets removed before anything is cut (a secret straddling a cut
// would lose the tail its pattern needs), on one line.
func clean(s string) string { return shorten.Flatten(sanitize.Clean(s)) }

func firstOf(rec *ledger.Record, t ledger.EntryType) *ledger.Entry {
	for i := range rec.Thread {
		if rec.Thread[i].Type == t {
			return &rec.Thread[i]
		}
	}
	return nil
}

func orNobody(names []string) string {
	var keep []string
	for _, n := range names {
		if n != "" {
			keep = append(keep, n)
		}
	}
	if len(keep) == 0 {
		return "nobody"
	}
	return strings.Join(keep, ", ")
}

// Store is the part of the memory store remembering needs.
type Store interface {
	Held(issue int, ids []string) (map[string]bool, error)
	StoreReport(ctx context.Context, obs []memory.Observation) ([]memory.Observation, []memory.Duplicate, error)
}

// Remember stores the decisions of the resolved records among recs that
// memory does not hold yet and never removed on purpose (a decision a
// person removed or retention archived stays gone), and returns those it
// stored. Records of several issues may be mixed.
func Remember(ctx context.Context, store Store, recs ...ledger.Record) ([]memory.Observation, error) {
	// The ids first: they are cheap, and in the steady state of a hook's
	// catch-up every one is held, so no thread is summarised (and
	// sanitised) for nothing.
	byIssue := map[int][]*ledger.Record{}
	var order []int
	for i := range recs {
		if recs[i].Status != ledger.Resolved {
			continue
		}
		issue := recs[i].IssueNumber
		if byIssue[issue] == nil {
			order = append(order, issue)
		}
		byIssue[issue] = append(byIssue[issue], &recs[i])
	}
	var stored []memory.Observation
	for _, issue := range order {
		cands := byIssue[issue]
		ids := make([]string, len(cands))
		for i, rec := range cands {
			ids[i] = ID(rec)
		}
		held, err := store.Held(issue, ids)
		if err != nil {
			return stored, fmt.Errorf("decisions of issue #%d: %w", issue, err)
		}
		var missing []memory.Observation
		for i, rec := range cands {
			if held[ids[i]] {
				continue
			}
			if obs, ok := Observation(rec); ok {
				missing = append(missing, obs)
			}
		}
		if len(missing) == 0 {
			continue
		}
		// The store dedupes by id again under the issue file's lock: two
		// processes remembering at once still leave one observation.
		added, _, err := store.StoreReport(ctx, missing)
		stored = append(stored, added...)
		if err != nil {
			return stored, fmt.Errorf("decisions of issue #%d: %w", issue, err)
		}
	}
	return stored, nil
}

// Ledgers is the part of the ledger store CatchUp reads.
type Ledgers interface {
	Load(issue int) (*ledger.Ledger, error)
}

// CatchUp remembers the resolved records of one issue that memory lacks:
// those resolved on GitHub (the Action's ingest has no memory store) and
// those whose resolve crashed or failed before its side effect. It reads
// the memory file only when the ledger has a resolved record.
func CatchUp(ctx context.Context, ledgers Ledgers, store Store, issue int) ([]memory.Observation, error) {
	l, err := ledgers.Load(issue)
	if err != nil {
		return nil, err
	}
	var resolved []ledger.Record
	for _, r := range l.Clarifications {
		if r.Status == ledger.Resolved {
			resolved = append(resolved, r)
		}
	}
	if len(resolved) == 0 {
		return nil, nil
	}
	return Remember(ctx, store, resolved...)
}
