package statemerge

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

func parseIssueFile(path, side string, issue int, data []byte) (*memory.IssueFile, error) {
	if data == nil {
		return &memory.IssueFile{Version: 1, IssueNumber: issue}, nil
	}
	f, err := memory.ParseIssueFile(path, data)
	if err != nil {
		return nil, unmergeable(side, err)
	}
	if err := checkIssue(path, issue, f.IssueNumber); err != nil {
		return nil, unmergeable(side, err)
	}
	if f.IssueNumber == 0 {
		f.IssueNumber = issue // as ledger.Parse reads a ledger without one
	}
	f.Extra = compactFields(f.Extra)
	for i := range f.Observations {
		f.Observations[i].Extra = compactFields(f.Observations[i].Extra)
	}
	return f, nil
}

// mergeMemoryFile merges an issue file (a union of the sides'
// observations less those a tombstone removed) or an archive (a union:
// archives only grow).
func mergeMemoryFile(path string, issue int, archive bool, base, ours, theirs []byte, rep *Report) ([]byte, error) {
	b, o, t, err := parse3(func(side string, data []byte) (*memory.IssueFile, error) {
		return parseIssueFile(path, side, issue, data)
	}, base, ours, theirs)
	if err != nil {
		return nil, err
	}
	dead, err := sideTombstones(path, b.Extra, o.Extra, t.Extra)
	if err != nil {
		return nil, err
	}
	m := mergeIssueFiles(b, o, t, base != nil, archive, dead, rep)
	data, err := m.Marshal()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: encode merged file: %w", path, ErrUnmergeable, err)
	}
	return data, nil
}

type obsSlot struct {
	key     string
	b, o, t *memory.Observation
	basePos int
}

func mergeIssueFiles(b, o, t *memory.IssueFile, hasBase, archive bool, dead tombstone.Set, rep *Report) *memory.IssueFile {
	out := &memory.IssueFile{}
	out.Version, _ = pick3(hasBase, b.Version, o.Version, t.Version, maxInt)
	out.IssueNumber, _ = pick3(hasBase, b.IssueNumber, o.IssueNumber, t.IssueNumber, maxInt)
	out.UpdatedAt, _ = pick3(hasBase, b.UpdatedAt, o.UpdatedAt, t.UpdatedAt, laterTime)
	out.Extra = mergeFields(tombstone.Without(b.Extra), tombstone.Without(o.Extra), tombstone.Without(t.Extra),
		largerValue, rep, fmt.Sprintf("memory file of issue %d", out.IssueNumber))
	out.SetTombstones(dead)

	slots := map[string]*obsSlot{}
	var keys []string
	add := func(f *memory.IssueFile, set func(*obsSlot, *memory.Observation, int)) {
		seen := map[string]int{}
		for i := range f.Observations {
			ob := &f.Observations[i]
			k := ob.ID
			if n := seen[ob.ID]; n > 0 {
				k += "\x00#" + strconv.Itoa(n) // one id twice in a file: kept apart
			}
			seen[ob.ID]++
			s := slots[k]
			if s == nil {
				s = &obsSlot{key: k, basePos: -1}
				slots[k] = s
				keys = append(keys, k)
			}
			set(s, ob, i)
		}
	}
	add(b, func(s *obsSlot, ob *memory.Observation, i int) { s.b, s.basePos = ob, i })
	add(o, func(s *obsSlot, ob *memory.Observation, _ int) { s.o = ob })
	add(t, func(s *obsSlot, ob *memory.Observation, _ int) { s.t = ob })

	type merged struct {
		obs     memory.Observation
		basePos int
		key     string
	}
	var obs []merged
	for _, k := range keys {
		s := slots[k]
		if !archive && dead.Has(tombstone.Observation, strings.SplitN(k, "\x00", 2)[0]) {
			continue // removed on purpose (memory remove, compaction)
		}
		ob, ok := mergeObsSlot(s, rep)
		if ok {
			obs = append(obs, merged{obs: ob, basePos: s.basePos, key: k})
		}
	}
	// The base's order, then new observations by time: the order they
	// were stored in on either side.
	sort.SliceStable(obs, func(i, j int) bool {
		a, c := &obs[i], &obs[j]
		if (a.basePos >= 0) != (c.basePos >= 0) {
			return a.basePos >= 0
		}
		if a.basePos != c.basePos {
			return a.basePos < c.basePos
		}
		if a.obs.Timestamp != c.obs.Timestamp {
			return timeLess(a.obs.Timestamp, c.obs.Timestamp)
		}
		return a.key < c.key
	})
	out.Observations = make([]memory.Observation, len(obs))
	for i := range obs {
		out.Observations[i] = obs[i].obs
	}
	return out
}

func obsBytes(o *memory.Observation) string {
	data, _ := o.MarshalJSON()
	return string(data)
}

// mergeObsSlot merges one observation's versions. Absence is never a
// removal (a tombstone is, and the caller applied those): an observation
// missing on one side, or on both with the base still holding it, is kept.
func mergeObsSlot(s *obsSlot, rep *Report) (memory.Observation, bool) {
	switch {
	case s.o == nil && s.t == nil:
		if s.b == nil {
			return memory.Observation{}, false
		}
		rep.note("observation %s: missing on both sides without a tombstone; kept from the base", s.b.ID)
		return *s.b, true
	case s.o == nil:
		return *s.t, true
	case s.t == nil:
		return *s.o, true
	}
	ob, tb := obsBytes(s.o), obsBytes(s.t)
	switch {
	case ob == tb:
		return *s.o, true
	// One side unchanged: the other's, unless it is an older copy (fewer
	// recalls than the base), which the full merge settles.
	case s.b != nil && obsBytes(s.b) == ob && s.t.RecallCount >= s.b.RecallCount:
		return *s.t, true
	case s.b != nil && obsBytes(s.b) == tb && s.o.RecallCount >= s.b.RecallCount:
		return *s.o, true
	}
	return mergeObservation(s.b, s.o, s.t, rep), true
}

// mergeObservation merges an observation both sides changed. The recall
// count adds what each side recalled since the base; other fields are
// written once by the capture, so a difference is a conflict.
func mergeObservation(b, o, t *memory.Observation, rep *Report) memory.Observation {
	hb := b != nil
	if b == nil {
		b = &memory.Observation{}
	}
	where := "observation " + o.ID
	var m memory.Observation
	str := func(field string, bv, ov, tv string) string {
		v, both := pick3(hb, bv, ov, tv, maxString)
		if both {
			rep.conflict("%s: %s changed on both sides; kept %q", where, field, v)
		}
		return v
	}
	m.ID = o.ID
	m.Agent = str("agent", b.Agent, o.Agent, t.Agent)
	m.IssueNumber, _ = pick3(hb, b.IssueNumber, o.IssueNumber, t.IssueNumber, maxInt)
	m.Category = memory.Category(str("category", string(b.Category), string(o.Category), string(t.Category)))
	m.Content = str("content", b.Content, o.Content, t.Content)
	m.Summary = str("summary", b.Summary, o.Summary, t.Summary)
	m.Tokens, _ = pick3(hb, b.Tokens, o.Tokens, t.Tokens, maxInt)
	m.Timestamp, _ = pick3(hb, b.Timestamp, o.Timestamp, t.Timestamp, earlierTime)
	m.SessionID = str("sessionId", b.SessionID, o.SessionID, t.SessionID)
	if hb {
		m.RecallCount = b.RecallCount + max(o.RecallCount-b.RecallCount, 0) + max(t.RecallCount-b.RecallCount, 0)
	} else {
		m.RecallCount = max(o.RecallCount, t.RecallCount)
	}
	m.Extra = mergeFields(b.Extra, o.Extra, t.Extra, largerValue, rep, where)
	return m
}
