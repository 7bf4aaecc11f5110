package statemerge

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// TestMergeLedgerProperties drives both sides through random protocol
// histories from a random base (fixed seeds, so every run is the same) and
// checks what must hold for any merge: the result parses, ids are unique,
// no entry of either side is lost, no record's status moves back, merging
// the result with itself is the result, and swapping sides changes nothing
// but which record is renumbered.
func TestMergeLedgerProperties(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		minute := 0
		var base []ledger.Record
		base = history(rng, base, &minute, rng.IntN(4))
		bm := minute
		ours := history(rng, base, &minute, rng.IntN(6))
		minute = bm // theirs happens at the same time, elsewhere
		theirs := history(rng, base, &minute, rng.IntN(6))

		bb, ob, tb := file(t, base...), file(t, ours...), file(t, theirs...)
		got, rep, err := MergeFile(ledgerPath, bb, ob, tb)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		m := decode(t, got)
		where := fmt.Sprintf("seed %d:\nbase %s\nours %s\ntheirs %s\nmerged %s", seed, bb, ob, tb, got)

		seen := map[string]bool{}
		for _, r := range m.Clarifications {
			if seen[r.ID] {
				t.Fatalf("duplicate id %s; %s", r.ID, where)
			}
			seen[r.ID] = true
		}
		for _, side := range [][]ledger.Record{ours, theirs} {
			for i := range side {
				r := &side[i]
				mr := findSame(m, r)
				if mr == nil {
					t.Fatalf("record %s lost; %s", r.ID, where)
				}
				have := map[string]bool{}
				for j := range mr.Thread {
					have[entrySansBody(&mr.Thread[j])] = true
				}
				for j := range r.Thread {
					if !have[entrySansBody(&r.Thread[j])] {
						t.Fatalf("entry %d of %s lost; %s", j, r.ID, where)
					}
				}
				if statusRank(mr) < statusRank(r) {
					t.Fatalf("%s went back from %s to %s; %s", r.ID, r.Status, mr.Status, where)
				}
			}
		}
		again, _, err := MergeFile(ledgerPath, bb, got, got)
		if err != nil || string(again) != string(got) {
			t.Fatalf("merge(base, m, m) != m; %s", where)
		}
		swapped, srep, err := MergeFile(ledgerPath, bb, tb, ob)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Renamed) == 0 && string(swapped) != string(got) {
			t.Fatalf("not symmetric; %s\nswapped %s", where, swapped)
		}
		if len(rep.Renamed) != len(srep.Renamed) || sameRecords(m) != sameRecords(decode(t, swapped)) {
			t.Fatalf("swapped merge has other records; %s\nswapped %s", where, swapped)
		}
	}
}

// history applies n random protocol operations to a copy of recs.
func history(rng *rand.Rand, recs []ledger.Record, minute *int, n int) []ledger.Record {
	out := make([]ledger.Record, len(recs))
	for i := range recs {
		out[i] = clone(recs[i])
	}
	for ; n > 0; n-- {
		*minute++
		at := *minute
		if len(out) == 0 || rng.IntN(3) == 0 {
			l := ledger.Ledger{IssueNumber: 42, Clarifications: out}
			r := req(l.NextID(), at, fmt.Sprintf("Question %d?", rng.IntN(1000)))
			r.Topic = fmt.Sprintf("topic %d", rng.IntN(1000))
			out = append(out, r)
			continue
		}
		i := rng.IntN(len(out))
		r := out[i]
		switch op := rng.IntN(6); {
		case op == 0 && r.Status.Waiting():
			out[i] = answer(r, at, fmt.Sprintf("Answer %d.", rng.IntN(1000)))
		case op == 1 && r.Status == ledger.Answered:
			out[i] = ask(r, at, fmt.Sprintf("Follow-up %d?", rng.IntN(1000)))
		case op == 2 && (r.Status.Open() || r.Status == ledger.Escalated):
			out[i] = resolve(r, at)
		case op == 3 && r.Status.Open():
			out[i] = escalate(r, at)
		case op == 4 && (r.Status.Open() || r.Status == ledger.Escalated):
			out[i] = abandon(r, at)
		case op == 5 && r.Status.Waiting():
			out[i] = markStale(r, at)
		}
	}
	return out
}

// findSame finds r's copy in m by what never changes.
func findSame(m *ledger.Ledger, r *ledger.Record) *ledger.Record {
	for i := range m.Clarifications {
		if compatible(&m.Clarifications[i], r) {
			return &m.Clarifications[i]
		}
	}
	return nil
}

// entrySansBody identifies an entry; escalation bodies change on a rename.
func entrySansBody(e *ledger.Entry) string {
	if e.Type == ledger.Escalation {
		c := *e
		c.Body = ""
		return entryKey(&c)
	}
	return entryKey(e)
}

// statusRank orders statuses along the lifecycle within a round.
func statusRank(r *ledger.Record) int {
	if t := terminalRank(r.Status); t > 0 {
		return 1000 + t
	}
	return r.Round*10 + openRank(r.Status)
}
