package statemerge

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

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
