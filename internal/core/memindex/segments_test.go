package memindex

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomIndex is n documents over a small vocabulary (so some terms are
// in most documents, the dense case), with colliding times (ties).
func randomIndex(r *rand.Rand, n int) *Index {
	vocab := []string{"redis", "cache", "token", "refresh", "export", "login", "timeout", "cluster", "session", "queue"}
	agents := []string{"engineer", "architect", "reviewer"}
	cats := []string{"decision", "error", "key-fact"}
	b := NewBuilder()
	for range n {
		words := ""
		for range 1 + r.IntN(8) {
			words += vocab[r.IntN(len(vocab))] + " "
		}
		b.Add(Doc{Issue: 1 + r.IntN(6), Time: int64(r.IntN(20)), Agent: agents[r.IntN(3)], Category: cats[r.IntN(3)]}, words)
	}
	ix, err := Decode(b.Encode(Stamp{}), true)
	if err != nil {
		panic(err)
	}
	return ix
}

func randomQuery(r *rand.Rand) Query {
	texts := []string{"redis", "token refresh", "cache cache", "login timeout cluster", "queue", "nothing", "export redis session"}
	q := Query{Text: texts[r.IntN(len(texts))], Limit: []int{0, 1, 5, -1}[r.IntN(4)]}
	switch r.IntN(5) {
	case 0:
		q.Agent = "engineer"
	case 1:
		q.Issue = 1 + r.IntN(6)
	case 2:
		q.Category = "error"
	case 3:
		q.Since, q.Until = 5, 15
	}
	return q
}

// SearchSegs over one segment ranks as Index.Search does, scores equal to
// the bit: the merged posting walk sums each document's terms in the same
// order as the per-term passes with their score arrays.
func TestSearchSegsMatchesSearch(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		ix := randomIndex(r, []int{1, 10, 100, 3000}[round%4])
		q := randomQuery(r)
		want, err := ix.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SearchSegs([]Seg{{Ix: ix}}, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("round %d %+v: %d hits, want %d", round, q, len(got), len(want))
		}
		for i := range got {
			if got[i].Seg != 0 || got[i].Doc != want[i].Doc || got[i].Score != want[i].Score {
				t.Fatalf("round %d %+v hit %d: %+v, want %+v", round, q, i, got[i], want[i])
			}
		}
	}
}

// Over several segments with hidden issues, SearchSegs ranks as a brute
// force over every document with the segments' summed figures.
func TestSearchSegsMatchesBruteForce(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 100 {
		segs := []Seg{{Ix: randomIndex(r, 1+r.IntN(400))}, {Ix: randomIndex(r, 1+r.IntN(50))}}
		hidden := 1 + r.IntN(6)
		segs[0].Dead = func(issue int) bool { return issue == hidden }
		q := randomQuery(r)
		got, err := SearchSegs(segs, q)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteSegs(segs, q)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d %+v:\n got %v\nwant %v", round, q, got, want)
		}
	}
}

// bruteSegs offers every scored document (scoreEvery) to the engine's
// own top.
func bruteSegs(segs []Seg, q Query) []SegHit {
	top := newSegTop(segs, q.limit())
	for _, h := range scoreEvery(segs, q) {
		top.offer(SegHit{Seg: h.Seg, Doc: h.Doc, Score: h.Score})
	}
	return top.sorted()
}
