package statemerge

import (
	"sort"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// mergeSlot merges the three versions of one logical record; ok is false
// when a tombstone removed it.
func mergeSlot(s *slot, dead tombstone.Set, rep *Report) (ledger.Record, bool) {
	var b, o, t *ledger.Record
	if s.b != nil {
		b = s.b.rec
	}
	if s.o != nil {
		o = s.o.rec
	}
	if s.t != nil {
		t = s.t.rec
	}
	if r := s.any(); dead.Has(tombstone.Record, r.ID) || dead.Has(tombstone.Record, origin(r)) {
		return ledger.Record{}, false
	}
	// Absence is never a removal: a record missing on one side (or on
	// both, the base still holding it) is "not here yet" and kept.
	switch {
	case o == nil && t == nil:
		rep.note("%s: missing on both sides without a tombstone; kept from the base", b.ID)
		return *b, true
	case o == nil:
		return *t, true
	case t == nil:
		return *o, true
	}
	ob, tb := recordBytes(o), recordBytes(t)
	switch {
	case ob == tb:
		return *o, true
	// One side unchanged since the base: the other's record, but only when
	// it moved forward from the base (every base entry still in its
	// thread, its round not lower). An older copy (a branch force-pushed
	// back, a state_branch changed and back) is not a change to adopt: the
	// full merge keeps the newer entries and status.
	case b != nil && recordBytes(b) == ob && extends(t, b):
		return *t, true
	case b != nil && recordBytes(b) == tb && extends(o, b):
		return *o, true
	}
	return mergeRecord(b, o, t, rep), true
}

// extends reports whether x is a later state of the record b: it holds
// every thread entry of b and is at b's round or later.
func extends(x, b *ledger.Record) bool {
	if x.Round < b.Round {
		return false
	}
	have := entryMap(x.Thread)
	for i := range b.Thread {
		if have[entryKey(&b.Thread[i])] == nil {
			return false
		}
	}
	return true
}

// mergeRecord merges a record both sides changed (b is nil when the base
// has none).
func mergeRecord(b, o, t *ledger.Record, rep *Report) ledger.Record {
	hb := b != nil
	if b == nil {
		b = &ledger.Record{}
	}
	var m ledger.Record
	var both bool
	where := o.ID
	arbitrary := func(field string, v string, changed bool) {
		if changed {
			rep.conflict("%s: %s changed on both sides; kept %q", where, field, v)
		}
	}
	m.ID, _ = pick3(hb, b.ID, o.ID, t.ID, func(x, y string) string { return min(x, y) })
	m.IssueNumber, _ = pick3(hb, b.IssueNumber, o.IssueNumber, t.IssueNumber, maxInt)
	m.From, both = pick3(hb, b.From, o.From, t.From, maxString)
	arbitrary("from", m.From, both)
	m.To, both = pick3(hb, b.To, o.To, t.To, maxString)
	arbitrary("to", m.To, both)
	m.Topic, both = pick3(hb, b.Topic, o.Topic, t.Topic, maxString)
	arbitrary("topic", m.Topic, both)
	// Blocking on either side keeps the requester's wait visible.
	m.Blocking, _ = pick3(hb, b.Blocking, o.Blocking, t.Blocking, func(x, y bool) bool { return x || y })
	m.MaxRounds, _ = pick3(hb, b.MaxRounds, o.MaxRounds, t.MaxRounds, maxInt)
	m.Created, _ = pick3(hb, b.Created, o.Created, t.Created, earlierTime)
	// The later deadline belongs to the later action (a follow-up round,
	// the monitor's first timeout).
	m.StaleAfter, _ = pick3(hb, b.StaleAfter, o.StaleAfter, t.StaleAfter, laterTime)
	m.Round = max(o.Round, t.Round)
	m.Status = mergeStatus(o, t, rep)
	m.ResolvedAt = mergeResolvedAt(hb, b.ResolvedAt, o.ResolvedAt, t.ResolvedAt)
	m.Thread = mergeThread(b.Thread, o.Thread, t.Thread, rep, where)
	m.Extra = mergeFields(b.Extra, o.Extra, t.Extra, recordResolver, rep, where)
	return m
}

// terminalRank orders the settled statuses: abandoned is final, a
// resolution stands over an escalation, an escalation over any open status.
func terminalRank(s ledger.Status) int {
	switch s {
	case ledger.Abandoned:
		return 3
	case ledger.Resolved:
		return 2
	case ledger.Escalated:
		return 1
	}
	return 0
}

// openRank orders open statuses within one round: an answer beats the
// monitor's stale mark, which beats a plain wait.
func openRank(s ledger.Status) int {
	switch s {
	case ledger.Answered:
		return 3
	case ledger.Stale:
		return 2
	case ledger.Pending:
		return 1
	}
	return 0 // unknown statuses lose to every known one
}

// mergeStatus applies the lifecycle precedence. It needs no base: every
// transition the router makes moves a record forward in this order.
func mergeStatus(o, t *ledger.Record, rep *Report) ledger.Status {
	if o.Status == t.Status {
		return o.Status
	}
	ot, tt := terminalRank(o.Status), terminalRank(t.Status)
	switch {
	case ot != tt:
		if ot > tt {
			return o.Status
		}
		return t.Status
	case o.Round != t.Round:
		if o.Round > t.Round {
			return o.Status
		}
		return t.Status
	}
	or, tr := openRank(o.Status), openRank(t.Status)
	switch {
	case or > tr:
		return o.Status
	case tr > or:
		return t.Status
	}
	s := max(o.Status, t.Status)
	rep.conflict("%s: status %q and %q are not ones agentx knows; kept %q", o.ID, o.Status, t.Status, s)
	return s
}

// mergeResolvedAt keeps the first resolution's time where both sides
// resolved.
func mergeResolvedAt(hasBase bool, b, o, t *string) *string {
	str := func(p *string) string {
		if p == nil {
			return "\x00nil"
		}
		return *p
	}
	v, _ := pick3(hasBase, str(b), str(o), str(t), func(x, y string) string {
		switch {
		case x == "\x00nil":
			return y
		case y == "\x00nil":
			return x
		}
		return earlierTime(x, y)
	})
	if v == "\x00nil" {
		return nil
	}
	return &v
}

// mergeThread merges threads as sets of entries: an entry on any side is
// kept once (absence is never a removal); extra keys of one entry are
// merged key by key. The result is ordered by round, then
// time, then the order a round's entries are written in.
func mergeThread(b, o, t []ledger.Entry, rep *Report, where string) []ledger.Entry {
	bm, om, tm := entryMap(b), entryMap(o), entryMap(t)
	var out []ledger.Entry
	done := map[string]bool{}
	add := func(side []ledger.Entry) {
		for i := range side {
			k := entryKey(&side[i])
			if done[k] {
				continue
			}
			done[k] = true
			oe, te := om[k], tm[k]
			be := bm[k]
			var e ledger.Entry
			switch {
			case oe == nil && te == nil:
				e = *be
			case oe == nil:
				e = *te
			case te == nil:
				e = *oe
			default:
				e = *oe
				var bx []jsonfile.Field
				if be != nil {
					bx = be.Extra
				}
				e.Extra = mergeFields(bx, oe.Extra, te.Extra, entryResolver, rep, where+" thread entry")
			}
			out = append(out, e)
		}
	}
	add(o)
	add(t)
	// An entry only the base still has is kept too: no command removes a
	// thread entry, so its absence on both sides is a loss, not an act.
	add(b)
	sort.SliceStable(out, func(i, j int) bool { return entryLess(&out[i], &out[j]) })
	return out
}

func entryMap(es []ledger.Entry) map[string]*ledger.Entry {
	m := make(map[string]*ledger.Entry, len(es))
	for i := range es {
		k := entryKey(&es[i])
		if m[k] == nil {
			m[k] = &es[i]
		}
	}
	return m
}

// typeRank is the order of a round's entries with equal timestamps.
func typeRank(t ledger.EntryType) int {
	switch t {
	case ledger.Question:
		return 0
	case ledger.Answer:
		return 1
	case ledger.Escalation:
		return 2
	case ledger.Resolution:
		return 3
	}
	return 4
}

// entryLess is a total order on entries with distinct keys, so the merged
// thread does not depend on which side was ours.
func entryLess(a, b *ledger.Entry) bool {
	if a.Round != b.Round {
		return a.Round < b.Round
	}
	if a.Timestamp != b.Timestamp {
		return timeLess(a.Timestamp, b.Timestamp)
	}
	if ra, rb := typeRank(a.Type), typeRank(b.Type); ra != rb {
		return ra < rb
	}
	return entryKey(a) < entryKey(b)
}
