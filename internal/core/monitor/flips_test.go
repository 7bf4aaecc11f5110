package monitor

import (
	"math/rand/v2"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// flipsAllPairs is flips as it compared every pair of records, the
// reference the grouped version must match finding for finding.
func flipsAllPairs(same []ledger.Record, seen map[string]bool, out []StuckFinding) []StuckFinding {
	for i := range same {
		for j := range same {
			a, b := &same[i], &same[j]
			if a.From != b.To || a.To != b.From || !older(a, b) || seen[b.ID] || !sameTopic(a.Topic, b.Topic) {
				continue
			}
			seen[b.ID] = true
			out = append(out, StuckFinding{Record: *b, Flipped: a.ID})
		}
	}
	return out
}

// Grouping the records by direction finds the same flips, in the same
// order, as comparing every pair: random issues of three agents, a few
// topics, records created out of order and at the same instant.
func TestFlipsMatchEveryPair(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(35, 5))
	agents := []string{"engineer", "architect", "reviewer"}
	topics := []string{"cache layer", "Cache Layer ", "auth flow", "the auth flow", "deploy"}
	found := 0
	for round := 0; round < 300; round++ {
		var same []ledger.Record
		for i := 0; i < 1+rng.IntN(12); i++ {
			from, to := agents[rng.IntN(3)], agents[rng.IntN(3)]
			r := rec(9, 1+rng.IntN(6), from, to, true, ledger.Pending)
			r.ID = r.ID + string(rune('a'+i))
			r.Topic = topics[rng.IntN(len(topics))]
			same = append(same, r)
		}
		want := flipsAllPairs(same, map[string]bool{}, nil)
		got := flips(same, map[string]bool{}, nil)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d flips, every pair gives %d", round, len(got), len(want))
		}
		for i := range got {
			if got[i].Record.ID != want[i].Record.ID || got[i].Flipped != want[i].Flipped {
				t.Fatalf("round %d: flip %d is %s after %s, every pair gives %s after %s", round, i,
					got[i].Record.ID, got[i].Flipped, want[i].Record.ID, want[i].Flipped)
			}
		}
		found += len(got)
	}
	if found < 50 {
		t.Fatalf("%d flips in all: the test checks too little", found)
	}
}
