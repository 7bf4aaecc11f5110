package memindex

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// tiedIndex is n documents most of which score the same for "deadlock
// queue" (the same few texts, so the same lengths and frequencies) with
// times from a narrow range (so the time ties too, and the segment and
// document decide), some in the order they are stored and some not.
func tiedIndex(r *rand.Rand, n int, rising bool) *Index {
	texts := []string{
		"deadlock detected between the billing webhook and the job queue",
		"deadlock detected between the payment service and the job queue",
		"deadlock in the queue",
		"the queue drains slowly",
		"deadlock deadlock queue",
		"nothing to see here",
	}
	b := NewBuilder()
	for d := range n {
		t := int64(r.IntN(4))
		if rising {
			t = int64(d / 7) // stored in time order, runs of equal times
		}
		text := texts[0]
		if r.IntN(4) == 0 {
			text = texts[r.IntN(len(texts))]
		}
		b.Add(Doc{Issue: 1 + r.IntN(5), Time: t, Agent: "engineer", Category: "error"}, text)
	}
	ix, err := Decode(b.Encode(Stamp{}), true)
	if err != nil {
		panic(err)
	}
	return ix
}

// scoreEvery is every passing, visible document of segs that holds a
// term of q, scored as SearchSegs scores (BM25 over the segments' joint
// statistics), in segment and document order, without any top.
func scoreEvery(segs []Seg, q Query) []SegHit {
	terms := Terms(q.Text)
	n, total := 0, uint64(0)
	for _, sg := range segs {
		n += sg.Ix.n
		total += sg.Ix.totalLen
	}
	avgdl := float64(total) / float64(n)
	var all []SegHit
	for i, sg := range segs {
		ix := sg.Ix
		f, ok := ix.filterFor(q)
		if !ok {
			continue
		}
		scores := make([]float64, ix.n)
		hit := make([]bool, ix.n)
		for _, term := range terms {
			df := 0.0
			for _, s2 := range segs {
				if tn := s2.Ix.findTerm(term); tn >= 0 {
					df += float64(s2.Ix.u32(secDF, tn))
				}
			}
			tn := ix.findTerm(term)
			if tn < 0 {
				continue
			}
			idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
			_ = eachPosting(ix.postings(tn), ix.n, func(d, tf int) {
				tfs := float64(tf)
				scores[d] += idf * tfs * (k1 + 1) / (tfs + k1*(1-bb+bb*ix.docLen(d)/avgdl))
				hit[d] = true
			})
		}
		for d := range ix.n {
			if hit[d] && f.pass(d) && (sg.Dead == nil || !sg.Dead(ix.issueOf(d))) {
				all = append(all, SegHit{Seg: i, Doc: d, Score: scores[d], time: ix.time(d)})
			}
		}
	}
	return all
}

// wholeRanking is scoreEvery sorted by the ranking's order written out
// (score, then newer, then later segment, then later document) with no
// top-k: the reference the ties test compares with.
func wholeRanking(segs []Seg, q Query) []SegHit {
	all := scoreEvery(segs, q)
	sort.Slice(all, func(a, b int) bool {
		x, y := all[a], all[b]
		switch {
		case x.Score != y.Score:
			return x.Score > y.Score
		case x.time != y.time:
			return x.time > y.time
		case x.Seg != y.Seg:
			return x.Seg > y.Seg
		}
		return x.Doc > y.Doc
	})
	if k := q.limit(); k >= 0 && len(all) > k {
		all = all[:k]
	}
	return all
}

// Where ties decide (hundreds of documents with the top's worst score,
// in a base, a delta and a third segment, some issues hidden), the top k
// is the whole ranking's first k: the same documents, order and scores.
func TestSearchSegsTiesMatchWholeRanking(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(35, 6))
	for round := range 120 {
		segs := []Seg{
			{Ix: tiedIndex(r, 200+r.IntN(1500), round%2 == 0)},
			{Ix: tiedIndex(r, 1+r.IntN(80), round%3 == 0)},
			{Ix: tiedIndex(r, 1+r.IntN(20), round%5 == 0)},
		}
		hidden0, hidden1 := 1+r.IntN(5), 1+r.IntN(5)
		segs[0].Dead = func(issue int) bool { return issue == hidden0 || issue == hidden1 }
		segs[1].Dead = func(issue int) bool { return issue == hidden1 }
		q := Query{Text: []string{"deadlock queue", "queue", "deadlock", "queue deadlock job"}[r.IntN(4)],
			Limit: []int{0, 1, 3, 20, 57, -1}[r.IntN(6)]}
		if r.IntN(4) == 0 {
			q.Issue = 1 + r.IntN(5)
		}
		got, err := SearchSegs(segs, q)
		if err != nil {
			t.Fatal(err)
		}
		want := wholeRanking(segs, q)
		if len(got) != len(want) {
			t.Fatalf("round %d %+v: %d hits, want %d", round, q, len(got), len(want))
		}
		ties := 0
		for i := range got {
			if got[i].Seg != want[i].Seg || got[i].Doc != want[i].Doc || got[i].Score != want[i].Score {
				t.Fatalf("round %d %+v hit %d: %+v, want %+v", round, q, i, got[i], want[i])
			}
			if got[i].Score == got[len(got)-1].Score {
				ties++
			}
		}
		if round == 0 && ties < 2 {
			t.Fatalf("round 0: %d hits tie at the worst score; the test is meant to be decided by ties", ties)
		}
	}
}
