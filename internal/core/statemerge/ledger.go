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
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// RenamedFromKey is the record key naming the id a record was first
// allocated, set when a merge renumbers it after a collision. It is kept
// through later renames, so every copy of the record can be matched.
const RenamedFromKey = "renamedFrom"

// RenamedFromID is the id the clarification id was first given, when a
// merge renumbered it after an id collision, looked up in its issue's
// ledger in store ("" otherwise: not a clarification id, no such ledger
// or record).
func RenamedFromID(store *ledger.Store, id string) string {
	issue, err := validate.ClarificationID(id)
	if err != nil {
		return ""
	}
	l, err := store.Load(issue)
	if err != nil || l == nil {
		return ""
	}
	return RenamedFrom(l.Find(id))
}

// RenamedFrom is the id r was first given, when a merge renumbered it
// after an id collision ("" otherwise, and for a nil r).
func RenamedFrom(r *ledger.Record) string {
	if r == nil {
		return ""
	}
	var from string
	if raw := r.ExtraValue(RenamedFromKey); raw == nil || json.Unmarshal(raw, &from) != nil || from == r.ID {
		return ""
	}
	return from
}

// Record keys of other packages whose merge has a meaning (see
// internal/core/monitor and internal/core/router).
const (
	staleRoundKey = "staleRound"    // the round whose first timeout was handled
	slaKey        = "slaMinutes"    // the record's SLA
	reasonKey     = "monitorReason" // why the monitor escalated
)

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

// renumber settles id collisions: per id, the record that held it in the
// base, else in ours, keeps it; the others (records that came from theirs)
// are renumbered, oldest first, from the highest sequence number any of
// sides has ever used.
func renumber(recs []mergedRecord, issue int, rep *Report, sides ...*ledger.Ledger) {
	byID := map[string][]int{}
	for i := range recs {
		byID[recs[i].rec.ID] = append(byID[recs[i].rec.ID], i)
	}
	var rename []int
	for _, idx := range byID {
		rename = append(rename, losers(recs, idx)...)
	}
	if len(rename) == 0 {
		return
	}
	sort.Slice(rename, func(x, y int) bool {
		a, c := &recs[rename[x]], &recs[rename[y]]
		if a.rec.Created != c.rec.Created {
			return timeLess(a.rec.Created, c.rec.Created)
		}
		return a.slotKey < c.slotKey
	})
	next := maxSeq(issue, sides...) + 1
	for _, i := range rename {
		r := &recs[i].rec
		old, newID := r.ID, fmt.Sprintf("CLR-%d-%03d", issue, next)
		next++
		renameRecord(r, newID)
		rep.Renamed = append(rep.Renamed, Rename{Issue: issue, From: old, To: newID})
	}
}

// losers are the records of idx (indexes into recs, all with one id) that
// must give the id up.
func losers(recs []mergedRecord, idx []int) []int {
	if len(idx) < 2 {
		return nil
	}
	keeper := idx[0]
	for _, i := range idx[1:] {
		if recs[i].heldBy > recs[keeper].heldBy {
			keeper = i
		}
	}
	var out []int
	for _, i := range idx {
		// Copies that ours already held twice stay as they were.
		if i != keeper && !(recs[i].heldBy >= 1 && recs[keeper].heldBy >= 1 && recs[i].heldBy == recs[keeper].heldBy) {
			out = append(out, i)
		}
	}
	return out
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

// renameRecord gives r a new id. renamedFrom keeps the first id the record
// had. Escalation summaries name the record in the commands that settle
// it, so they are rewritten to the new id; other entries are history and
// stay as written.
func renameRecord(r *ledger.Record, newID string) {
	old := r.ID
	if r.ExtraValue(RenamedFromKey) == nil {
		raw, _ := json.Marshal(old)
		r.SetExtra(RenamedFromKey, raw)
	}
	r.ID = newID
	if _, sealed := r.StoredRecordHash(); sealed {
		r.Seal() // the id is one of the fields the record hash covers
	}
	for i := range r.Thread {
		if r.Thread[i].Type == ledger.Escalation {
			r.Thread[i].Body = replaceID(r.Thread[i].Body, old, newID)
		}
	}
}

// replaceID replaces whole-word occurrences of id in s (CLR-42-004 but not
// CLR-42-0045).
func replaceID(s, id, with string) string {
	if id == "" {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, id)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(id)
		before := i == 0 || !idChar(s[i-1])
		after := end == len(s) || !idChar(s[end])
		b.WriteString(s[:i])
		if before && after {
			b.WriteString(with)
		} else {
			b.WriteString(id)
		}
		s = s[end:]
	}
}

func idChar(c byte) bool {
	return c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// maxSeq is the highest N of the ids CLR-issue-N any side holds or held
// (renamedFrom), so a renumbered record never takes an id that was used.
func maxSeq(issue int, ls ...*ledger.Ledger) int {
	prefix := "CLR-" + strconv.Itoa(issue) + "-"
	n := 0
	seq := func(id string) {
		if rest, ok := strings.CutPrefix(id, prefix); ok {
			if v, err := strconv.Atoi(rest); err == nil && v > n {
				n = v
			}
		}
	}
	for _, l := range ls {
		for i := range l.Clarifications {
			seq(l.Clarifications[i].ID)
			seq(origin(&l.Clarifications[i]))
		}
	}
	return n
}
