package digest

import (
	"encoding/json"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// outcome of a settled clarification.
type outcome int

const (
	open outcome = iota
	autoResolved
	resolvedWithPerson
	escalated
	abandoned
)

// fact is what the digest knows of one record, computed once.
type fact struct {
	rec      *ledger.Record
	created  time.Time
	settled  time.Time // zero while open
	outcome  outcome
	escBy    string // "monitor", "agent", "person"
	reason   string // the monitor's reason, if it escalated
	rounds   int
	answers  []answerTime
	staleAt  time.Time // when a round went stale, from the ledger's mark
	waitFrom time.Time // since when the current round waits
}

type answerTime struct{ asked, answered time.Time }

// Monitor record keys (internal/core/monitor keeps them; the digest reads
// them without importing the monitor's acting side).
const (
	staleRoundKey = "staleRound"
	reasonKey     = "monitorReason"
)

func ts(s string) time.Time { t, _ := clock.Parse(s); return t }

// roundLog holds, per round (1-based), when its question was asked and
// whether it was answered. Slices, not maps: a digest builds this for
// every record.
type roundLog struct {
	asked    []time.Time
	answered []bool
}

// grown is l with room for round (a value, not a pointer method: the
// buffers behind l stay on the caller's stack).
func (l roundLog) grown(round int) roundLog {
	for round >= len(l.asked) {
		l.asked, l.answered = append(l.asked, time.Time{}), append(l.answered, false)
	}
	return l
}

func factOf(r *ledger.Record, isAgent func(string) bool) fact {
	f := fact{rec: r, created: r.CreatedTime(), rounds: r.Round}
	var askedBuf [8]time.Time
	var answeredBuf [8]bool
	l := roundLog{askedBuf[:], answeredBuf[:]}
	if !f.created.IsZero() {
		l.asked[1] = f.created
	}
	// By value in and out, so the buffers stay on the stack.
	l, m := f.readThread(l, isAgent)
	if f.rounds < 1 {
		f.rounds = 1
	}
	f.settle(m, isAgent)
	// The monitor marks the round whose SLA it found missed; the round's
	// question dates it when the event log no longer does.
	if raw := r.ExtraValue(staleRoundKey); raw != nil {
		var n int
		if json.Unmarshal(raw, &n) == nil && n >= 0 {
			l = l.grown(n)
			f.staleAt = l.asked[n]
			if f.staleAt.IsZero() {
				f.staleAt = f.created
			}
		}
	}
	l = l.grown(f.rounds)
	f.waitFrom = l.asked[f.rounds]
	if f.waitFrom.IsZero() {
		f.waitFrom = f.created
	}
	if r.Status == ledger.Answered {
		// The requester owes the next step: the wait began at the answer.
		if e := r.LastOf(ledger.Answer); e != nil && !ts(e.Timestamp).IsZero() {
			f.waitFrom = ts(e.Timestamp)
		}
	}
	return f
}

// threadMarks is what settling a record needs from its thread.
type threadMarks struct {
	human             bool // a person (neither the hub nor an agent) wrote in it
	firstEsc, lastRes *ledger.Entry
}

// readThread walks f's thread once: the rounds and their answer times go
// into f and l.
func (f *fact) readThread(l roundLog, isAgent func(string) bool) (roundLog, threadMarks) {
	var m threadMarks
	for i := range f.rec.Thread {
		e := &f.rec.Thread[i]
		if e.Round > f.rounds {
			f.rounds = e.Round
		}
		if e.From != ledger.HubName && !isAgent(e.From) {
			m.human = true
		}
		if e.Round < 0 {
			continue
		}
		l = l.grown(e.Round)
		t := ts(e.Timestamp)
		switch e.Type {
		case ledger.Question:
			if l.asked[e.Round].IsZero() || !t.IsZero() && t.Before(l.asked[e.Round]) {
				l.asked[e.Round] = t
			}
		case ledger.Answer:
			if !l.answered[e.Round] && !l.asked[e.Round].IsZero() && !t.IsZero() {
				l.answered[e.Round] = true
				f.answers = append(f.answers, answerTime{l.asked[e.Round], t})
			}
		case ledger.Escalation:
			if m.firstEsc == nil {
				m.firstEsc = e
			}
		case ledger.Resolution:
			m.lastRes = e
		}
	}
	return l, m
}

// settle sets how and when f's record was closed.
func (f *fact) settle(m threadMarks, isAgent func(string) bool) {
	r, firstEsc, lastRes := f.rec, m.firstEsc, m.lastRes
	switch {
	case firstEsc != nil:
		f.outcome, f.settled, f.escBy = escalated, ts(firstEsc.Timestamp), escalator(firstEsc.From, isAgent)
		var reason string // not &f.reason: that would move f to the heap
		if raw := r.ExtraValue(reasonKey); raw != nil {
			_ = json.Unmarshal(raw, &reason)
		}
		f.reason = reason
	case r.Status == ledger.Resolved:
		f.outcome = autoResolved
		if m.human {
			f.outcome = resolvedWithPerson
		}
		if r.ResolvedAt != nil {
			f.settled = ts(*r.ResolvedAt)
		}
		if f.settled.IsZero() && lastRes != nil {
			f.settled = ts(lastRes.Timestamp)
		}
	case r.Status == ledger.Abandoned:
		f.outcome = abandoned
		if lastRes != nil {
			f.settled = ts(lastRes.Timestamp)
		}
		if f.settled.IsZero() && r.ResolvedAt != nil {
			f.settled = ts(*r.ResolvedAt)
		}
	}
	if f.outcome != open && f.settled.IsZero() {
		// A closed record without a readable time settled no later than
		// it was created, as far as anyone can tell.
		f.settled = f.created
	}
}

// escalator names who escalated: the monitor (as the hub), an agent or a
// person.
func escalator(from string, isAgent func(string) bool) string {
	switch {
	case from == ledger.HubName:
		return "monitor"
	case isAgent(from):
		return "agent"
	default:
		return "person"
	}
}
