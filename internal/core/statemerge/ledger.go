package statemerge

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// RenamedFromKey is the record key naming the id a record was first
// allocated, set when a merge renumbers it after a collision. It is kept
// through later renames, so every copy of the record can be matched.
const RenamedFromKey = "renamedFrom"

// ledgerResolver merges ledger-level keys both sides changed: the id
// high-water mark is the larger number (an id handed out on either side
// is never handed out again), any other key the larger value.
func ledgerResolver(key string, ours, theirs json.RawMessage) (json.RawMessage, bool) {
	if key == ledger.HighWaterKey {
		return maxIntValue(key, ours, theirs)
	}
	return largerValue(key, ours, theirs)
}

// recordResolver merges record keys both sides changed.
func recordResolver(key string, ours, theirs json.RawMessage) (json.RawMessage, bool) {
	switch key {
	case staleRoundKey, slaKey:
		// The larger staleRound: the timeout handled on either side is
		// never handled again. The larger SLA: the more patient one.
		return maxIntValue(key, ours, theirs)
	case reasonKey, RenamedFromKey:
		// Both sides escalated (or renamed) the record: either reason is
		// true; the smaller is kept so the choice is symmetric.
		if string(ours) <= string(theirs) {
			return ours, false
		}
		return theirs, false
	}
	return largerValue(key, ours, theirs)
}

func parseLedger(path, side string, issue int, data []byte) (*ledger.Ledger, error) {
	if data == nil {
		return &ledger.Ledger{IssueNumber: issue}, nil
	}
	l, err := ledger.Parse(path, data, issue)
	if err != nil {
		return nil, unmergeable(side, err)
	}
	if err := checkIssue(path, issue, l.IssueNumber); err != nil {
		return nil, unmergeable(side, err)
	}
	l.Extra = compactFields(l.Extra)
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		r.Extra = compactFields(r.Extra)
		for j := range r.Thread {
			r.Thread[j].Extra = compactFields(r.Thread[j].Extra)
		}
	}
	return l, nil
}

func mergeLedgerFile(path string, issue int, base, ours, theirs []byte, rep *Report) ([]byte, error) {
	b, o, t, err := parse3(func(side string, data []byte) (*ledger.Ledger, error) {
		return parseLedger(path, side, issue, data)
	}, base, ours, theirs)
	if err != nil {
		return nil, err
	}
	dead, err := sideTombstones(path, b.Extra, o.Extra, t.Extra)
	if err != nil {
		return nil, err
	}
	m := mergeLedgers(b, o, t, base != nil, dead, rep)
	data, err := jsonfile.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: encode merged ledger: %w", path, ErrUnmergeable, err)
	}
	return data, nil
}

// version is one side's copy of a logical record.
type version struct {
	rec *ledger.Record
	pos int // index in its ledger
}

// slot is one logical record across the three sides.
type slot struct {
	b, o, t *version
}

// any returns one of the slot's versions.
func (s *slot) any() *ledger.Record {
	for _, v := range []*version{s.b, s.o, s.t} {
		if v != nil {
			return v.rec
		}
	}
	return nil
}

// compatible reports whether two records with one origin id are copies of
// one clarification, topic included: what a request writes and nothing
// changes afterwards (creation time, agents, topic, the first thread entry
// when both have one; a record of the old tools may start at round 0 with
// no entry).
func compatible(a, b *ledger.Record) bool {
	return a.Topic == b.Topic && sameRequest(a, b)
}

// sameRequest is compatible without the topic, a title a person may edit.
// It tells an edit only against a copy known to be the same record (the
// base's, under the same id): two requests made in one millisecond with
// the same first question on two clones differ by their topic alone, and
// must stay two records (TestConcurrentRequestsAndSyncsWithTheSemanticMerge).
func sameRequest(a, b *ledger.Record) bool {
	if a.Created != b.Created || a.From != b.From || a.To != b.To {
		return false
	}
	if len(a.Thread) == 0 || len(b.Thread) == 0 {
		return a.Topic == b.Topic
	}
	return entryKey(&a.Thread[0]) == entryKey(&b.Thread[0])
}

// mergeLedgers merges three parsed ledgers; hasBase is false when the base
// file is absent; dead is the union of the sides' tombstones.
func mergeLedgers(b, o, t *ledger.Ledger, hasBase bool, dead tombstone.Set, rep *Report) *ledger.Ledger {
	out := &ledger.Ledger{}
	out.IssueNumber, _ = pick3(hasBase, b.IssueNumber, o.IssueNumber, t.IssueNumber, maxInt)
	out.Extra = mergeFields(tombstone.Without(b.Extra), tombstone.Without(o.Extra), tombstone.Without(t.Extra),
		ledgerResolver, rep, fmt.Sprintf("ledger %d", out.IssueNumber))
	out.Extra = tombstone.ToExtra(out.Extra, dead)
	recs := mergeRecords(matchSlots(b, o, t), dead, rep)
	renumber(recs, out.IssueNumber, rep, b, o, t)
	out.Clarifications = make([]ledger.Record, len(recs))
	for i := range recs {
		out.Clarifications[i] = recs[i].rec
	}
	return out
}

// matchSlots matches the three sides' versions to logical records by
// origin id, then by identity: a side's record joins the first record of
// the same origin it is compatible with that has no version from that
// side yet.
func matchSlots(b, o, t *ledger.Ledger) []*slot {
	groups := map[string][]*slot{}
	var slots []*slot
	add := func(l *ledger.Ledger, get func(*slot) **version) {
		for i := range l.Clarifications {
			r := &l.Clarifications[i]
			g := origin(r)
			var into *slot
			for _, s := range groups[g] {
				if *get(s) == nil && compatible(s.any(), r) {
					into = s
					break
				}
			}
			if into == nil {
				// A topic edited on this side: the base's record under the
				// same id, the same request otherwise (issue 38).
				for _, s := range groups[g] {
					if *get(s) == nil && s.b != nil && s.b.rec.ID == r.ID && sameRequest(s.b.rec, r) {
						into = s
						break
					}
				}
			}
			if into == nil {
				into = &slot{}
				groups[g] = append(groups[g], into)
				slots = append(slots, into)
			}
			*get(into) = &version{rec: r, pos: i}
		}
	}
	add(b, func(s *slot) **version { return &s.b })
	add(o, func(s *slot) **version { return &s.o })
	add(t, func(s *slot) **version { return &s.t })
	return slots
}

// mergedRecord is one logical record after the merge.
type mergedRecord struct {
	rec     ledger.Record
	basePos int    // position in the base, or -1
	heldBy  int    // who held rec.ID for this record: 2 base, 1 ours, 0 theirs only
	slotKey string // for a total order
}

// mergeRecords merges each slot and orders the result: the base's records
// in the base's order, then the new ones by creation time.
func mergeRecords(slots []*slot, dead tombstone.Set, rep *Report) []mergedRecord {
	var recs []mergedRecord
	for _, s := range slots {
		r, ok := mergeSlot(s, dead, rep)
		if !ok {
			continue
		}
		m := mergedRecord{rec: r, basePos: -1, slotKey: recordKey(&r)}
		if s.b != nil {
			m.basePos = s.b.pos
		}
		switch {
		case s.b != nil && s.b.rec.ID == r.ID:
			m.heldBy = 2
		case s.o != nil && s.o.rec.ID == r.ID:
			m.heldBy = 1
		}
		recs = append(recs, m)
	}
	sort.SliceStable(recs, func(i, j int) bool {
		a, c := &recs[i], &recs[j]
		if (a.basePos >= 0) != (c.basePos >= 0) {
			return a.basePos >= 0
		}
		if a.basePos != c.basePos {
			return a.basePos < c.basePos
		}
		if a.rec.Created != c.rec.Created {
			return timeLess(a.rec.Created, c.rec.Created)
		}
		if a.rec.ID != c.rec.ID {
			return a.rec.ID < c.rec.ID
		}
		return a.slotKey < c.slotKey
	})
	return recs
}

// recordKey is a total order tie-break for records: origin id and identity.
func recordKey(r *ledger.Record) string {
	var b strings.Builder
	b.WriteString(origin(r))
	for _, s := range []string{r.Created, r.From, r.To, r.Topic, r.ID} {
		b.WriteByte(0)
		b.WriteString(s)
	}
	if len(r.Thread) > 0 {
		b.WriteByte(0)
		b.WriteString(entryKey(&r.Thread[0]))
	}
	return b.String()
}

// origin is the id a record was first allocated.
func origin(r *ledger.Record) string {
	if raw := r.ExtraValue(RenamedFromKey); raw != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return r.ID
}

// entryKey identifies a thread entry by everything but its extra keys.
func entryKey(e *ledger.Entry) string {
	return strconv.Itoa(e.Round) + "\x00" + e.From + "\x00" + string(e.Type) + "\x00" + e.Body + "\x00" + e.Timestamp
}

func recordBytes(r *ledger.Record) string {
	data, _ := r.MarshalJSON()
	return string(data)
}
