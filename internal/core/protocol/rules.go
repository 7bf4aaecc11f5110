package protocol

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/wordset"
)

// Record keys the monitor's verbs keep on a record (old tools keep them as
// unknown keys). They make each action happen once per timeout: the check
// that decides an action and the write that performs it look at the same
// key on the same record.
const (
	// staleRoundKey is the round whose first timeout was handled: marked
	// stale, retried, staleAfter pushed by one SLA. A second timeout of the
	// same round escalates; a new round (a follow-up question) starts over.
	staleRoundKey = "staleRound"
	// reasonKey says why the monitor escalated a record (stale, stuck,
	// deadlock), so `clarify stale` can list stuck records after the fact.
	reasonKey = "monitorReason"
)

// RecordKeys lists the keys the protocol writes on a record beyond the
// reference ones (docs/formats.md lists them; a test keeps the two equal).
func RecordKeys() []string { return []string{slaKey, staleRoundKey, reasonKey} }

// Reasons the monitor escalates for.
const (
	ReasonStale    = "stale"
	ReasonStuck    = "stuck"
	ReasonDeadlock = "deadlock"
)

// Similarity is the word-set overlap at or above which two questions count
// as the same question asked again.
const Similarity = 0.8

// SLA returns the record's SLA: our slaMinutes key, else the first round's
// window (staleAfter - created), else the default.
func SLA(rec *ledger.Record) time.Duration {
	if raw := rec.ExtraValue(slaKey); raw != nil {
		if n, err := strconv.Atoi(string(raw)); err == nil && n > 0 {
			return time.Duration(n) * time.Minute
		}
	}
	if d := rec.StaleAfterTime().Sub(rec.CreatedTime()); d > 0 && !rec.CreatedTime().IsZero() {
		return d
	}
	return config.DefaultSLAMinutes * time.Minute
}

// Timeout returns which timeout of its current round a record has reached
// at now: 0 (none: not waiting, within its SLA, or staleAfter unreadable),
// 1 or 2. A record the old tools marked stale without our key is on its
// first timeout: it has not been retried yet.
func Timeout(r *ledger.Record, now time.Time) int {
	if !r.Status.Waiting() {
		return 0
	}
	due := r.StaleAfterTime()
	if due.IsZero() || !now.After(due) {
		return 0
	}
	if round, ok := StaleRound(r); ok && round == r.Round {
		return 2
	}
	return 1
}

// StaleRound returns the round whose first timeout was handled.
func StaleRound(r *ledger.Record) (int, bool) {
	raw := r.ExtraValue(staleRoundKey)
	if raw == nil {
		return 0, false
	}
	n, err := strconv.Atoi(string(raw))
	return n, err == nil
}

// MonitorReason returns why the monitor escalated r ("" when it did not).
func MonitorReason(r *ledger.Record) string {
	var s string
	if raw := r.ExtraValue(reasonKey); raw != nil && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// Repeats reports whether a later question of r repeats an earlier one
// (normalised word sets at least Similarity alike), and returns the first
// such pair.
func Repeats(r *ledger.Record) (earlier, later ledger.Entry, ok bool) {
	n := 0
	for _, e := range r.Thread {
		if e.Type == ledger.Question {
			n++
		}
	}
	if n < 2 {
		return earlier, later, false // most records: nothing to compare
	}
	type q struct {
		entry ledger.Entry
		words wordset.Set
	}
	var qs []q
	for _, e := range r.Thread {
		if e.Type != ledger.Question {
			continue
		}
		cur := q{e, wordset.Of(e.Body)}
		for _, prev := range qs {
			if wordset.Jaccard(prev.words, cur.words) >= Similarity {
				return prev.entry, cur.entry, true
			}
		}
		qs = append(qs, cur)
	}
	return earlier, later, false
}

// EscalationSummary is the text a person reads when a clarification is
// handed to them: the topic, each agent's latest position, the rounds used
// and the exact commands that settle it.
func EscalationSummary(rec *ledger.Record, reason, cli string) string {
	var b strings.Builder
	// The pieces are sanitised before they are shortened (a record written
	// by an older version may hold a secret; cut first, its head would no
	// longer be recognised).
	fmt.Fprintf(&b, "[ESCALATED] Clarification %q (%s) could not be resolved: %s.\n", sanitize.Clean(rec.Topic), rec.ID, sanitize.Clean(reason))
	fmt.Fprintf(&b, "Agents: %s -> %s. Rounds used: %d of %d.\n", rec.From, rec.To, rec.Round, rec.MaxRounds)
	if q := rec.LastOf(ledger.Question); q != nil {
		fmt.Fprintf(&b, "%s's latest question: %s\n", q.From, shorten.Line(sanitize.Clean(q.Body), 300))
	}
	if a := rec.LastOf(ledger.Answer); a != nil {
		fmt.Fprintf(&b, "%s's latest answer: %s\n", a.From, shorten.Line(sanitize.Clean(a.Body), 300))
	} else {
		fmt.Fprintf(&b, "%s has not answered.\n", rec.To)
	}
	b.WriteString("Options:\n")
	fmt.Fprintf(&b, "  1. Decide and resolve: %s clarify %s %s --body \"<decision>\"\n", cli, Resolve, rec.ID)
	fmt.Fprintf(&b, "  2. Drop the question: %s clarify %s %s --body \"<why>\"\n", cli, Abandon, rec.ID)
	fmt.Fprintf(&b, "  On GitHub: /clarify %s %s <decision>", Resolve, rec.ID)
	return b.String()
}

// roundsValid refuses to act on a record whose round is past its
// maxRounds or negative (verify's ROUND_INVALID: a hand edit, a tool
// gone wrong): any verb would write on top of a record that needs a
// person, and round arithmetic past the limit means nothing.
func roundsValid(r *ledger.Record) error {
	if r.Round < 0 || r.MaxRounds > 0 && r.Round > r.MaxRounds {
		return errcode.New(errcode.CorruptState, "%s is at round %d past its maxRounds %d: left untouched", r.ID, r.Round, r.MaxRounds).
			WithHint("`agentx-hook verify` says what changed (ROUND_INVALID); repair the ledger by hand or restore a checkpoint (`agentx-hook checkpoint list`)")
	}
	return nil
}
