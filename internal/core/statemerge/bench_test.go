package statemerge

import (
	"fmt"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// BenchmarkMergeLedger merges a busy ledger (40 records, 4-entry threads)
// that both sides changed: each answered or resolved different records and
// both allocated the same next id.
func BenchmarkMergeLedger(b *testing.B) {
	var base, ours, theirs []ledger.Record
	for i := 1; i <= 40; i++ {
		r := answer(ask(answer(req(fmt.Sprintf("CLR-42-%03d", i), i%50, fmt.Sprintf("Question %d?", i)), i%50+1, "A."), i%50+2, "Again?"), i%50+3, "B.")
		base, ours, theirs = append(base, r), append(ours, r), append(theirs, r)
	}
	for i := 0; i < 40; i += 4 {
		ours[i] = resolve(ours[i], 55)
		theirs[i+1] = escalate(theirs[i+1], 56)
		theirs[i] = withExtra(theirs[i], "staleRound", "2")
	}
	ours = append(ours, req("CLR-42-041", 57, "Ours?"))
	theirs = append(theirs, req("CLR-42-041", 58, "Theirs?"))
	bb, ob, tb := file(b, base...), file(b, ours...), file(b, theirs...)
	b.SetBytes(int64(len(ob)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := MergeFile(ledgerPath, bb, ob, tb); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeMemory merges an issue file of 500 observations where each
// side added 10, removed 5 and recalled 20.
func BenchmarkMergeMemory(b *testing.B) {
	var base []memory.Observation
	for i := 0; i < 500; i++ {
		base = append(base, obs(fmt.Sprintf("obs-engineer-42-%d-abcdef", i), i%50, fmt.Sprintf("Decision number %d about the login flow and its sessions", i)))
	}
	ours := append([]memory.Observation(nil), base[5:]...)
	theirs := append([]memory.Observation(nil), base[:495]...)
	for i := 0; i < 20; i++ {
		ours[i*3] = recalled(ours[i*3], 1)
		theirs[i*5] = recalled(theirs[i*5], 2)
	}
	for i := 0; i < 10; i++ {
		ours = append(ours, obs(fmt.Sprintf("obs-engineer-42-o%d-abcdef", i), 55, "Ours"))
		theirs = append(theirs, obs(fmt.Sprintf("obs-engineer-42-t%d-abcdef", i), 56, "Theirs"))
	}
	bb, ob, tb := memFile(b, 1, base...), memFile(b, 2, ours...), memFile(b, 3, theirs...)
	b.SetBytes(int64(len(ob)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := MergeFile(memoryPath, bb, ob, tb); err != nil {
			b.Fatal(err)
		}
	}
}
