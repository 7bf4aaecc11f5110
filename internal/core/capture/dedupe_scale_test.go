package capture

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// manyBullets is a session summary of n distinct decision bullets (each
// differs from every other in several words), the shape that made the
// old pairwise de-duplication quadratic: 20,000 took 30 s.
func manyBullets(n int) string {
	var b strings.Builder
	b.WriteString("## Decisions\n")
	for i := range n {
		fmt.Fprintf(&b, "- Decided to route request %d through gateway shard%d with retry budget %d and cache tier t%d\n", i, i*7, i*13, i*31)
	}
	return b.String()
}

// De-duplication is near-linear: 20,000 distinct bullets must not take
// seconds of CPU (the old quadratic pass took 30 s).
func TestDedupeScalesToTwentyThousandBullets(t *testing.T) {
	text := manyBullets(20000)
	var res Result
	cpu := testenv.CPUOf(t, func() { res = ParseSummary(text) })
	if limit := time.Second * testenv.RaceSlowdown; cpu > limit {
		t.Fatalf("20,000 bullets took %s of CPU, over %s", cpu, limit)
	}
	if len(res.Candidates) == 0 || len(res.Candidates) > MaxPerCapture {
		t.Fatalf("%d candidates", len(res.Candidates))
	}
}

// Dedupe's result is the same as the pairwise definition: each candidate
// dropped is at least threshold similar to an earlier kept one of its
// category, each kept one is not.
func TestDedupeMatchesPairwiseDefinition(t *testing.T) {
	t.Parallel()
	var cands []Candidate
	words := []string{"cache", "redis", "session", "cookie", "jwt", "store", "lock", "file", "json", "sqlite"}
	for i := range 400 {
		var ws []string
		for j := range 4 + i%5 {
			ws = append(ws, words[(i*7+j*3)%len(words)], fmt.Sprintf("w%d", (i+j)%13))
		}
		cat := memory.Decision
		if i%3 == 0 {
			cat = memory.KeyFact
		}
		cands = append(cands, Candidate{Category: cat, Content: strings.Join(ws, " ")})
	}
	got := Dedupe(append([]Candidate(nil), cands...), DuplicateThreshold)
	want := dedupePairwise(cands, DuplicateThreshold)
	if len(got) != len(want) {
		t.Fatalf("%d kept, pairwise %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Content != want[i].Content {
			t.Fatalf("kept[%d] %q, pairwise %q", i, got[i].Content, want[i].Content)
		}
	}
}

func dedupePairwise(cands []Candidate, threshold float64) []Candidate {
	var out []Candidate
	for _, c := range cands {
		dup := false
		for _, k := range out {
			if k.Category == c.Category && Similarity(Words(c.Content), Words(k.Content)) >= threshold {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

// Keeping only the first few distinct candidates changes nothing about
// those few: what is merged into them is what the full pass merges.
func TestDedupeBoundedKeepsTheSameFirst(t *testing.T) {
	t.Parallel()
	var cands []Candidate
	words := []string{"cache", "redis", "session", "cookie", "jwt", "store", "lock", "file", "json", "sqlite"}
	for i := range 600 {
		var ws []string
		for j := range 3 + i%4 {
			ws = append(ws, words[(i*7+j*3)%len(words)], fmt.Sprintf("w%d", (i+j)%11))
		}
		cands = append(cands, Candidate{Category: memory.Decision, Content: strings.Join(ws, " "),
			Files: []string{fmt.Sprintf("f%d.go", i%17)}, SourceBytes: i})
	}
	all := Dedupe(append([]Candidate(nil), cands...), DuplicateThreshold)
	got, err := dedupe(nil, append([]Candidate(nil), cands...), DuplicateThreshold, 10)
	if err != nil || len(got) != 10 || len(all) <= 10 {
		t.Fatalf("%d kept of %d (%v)", len(got), len(all), err)
	}
	for i := range got {
		if got[i].Content != all[i].Content || got[i].SourceBytes != all[i].SourceBytes || !slices.Equal(got[i].Files, all[i].Files) {
			t.Fatalf("kept[%d] %+v, full pass %+v", i, got[i], all[i])
		}
	}
}
