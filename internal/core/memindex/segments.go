package memindex

import (
	"math"
	"strings"
)

// Seg is one segment of a store searched as one: a base index written at
// compaction and a small delta written by each write. Dead, when set,
// hides the documents of an issue the segment no longer speaks for (a
// later segment holds that issue's observations now).
type Seg struct {
	Ix   *Index
	Dead func(issue int) bool
}

// SegHit is one ranked document of a segmented search.
type SegHit struct {
	Seg, Doc int
	Score    float64
}

// SearchSegs ranks the documents of segs for q as Search ranks one index.
// BM25's collection figures (documents, mean length, document frequency)
// are the segments' sums, hidden documents included: a delta is small
// beside its base, so the ranks differ from a rebuilt index's only where
// scores were within a rounding of each other. Ties go to the newer
// document, then to the later segment and document.
func SearchSegs(segs []Seg, q Query) ([]SegHit, error) {
	terms := Terms(q.Text)
	if len(terms) == 0 && strings.TrimSpace(q.Text) != "" {
		return nil, nil
	}
	ss := &segSearch{segs: segs, top: newSegTop(segs, q.limit())}
	for i, sg := range segs {
		ss.n += sg.Ix.n
		ss.total += sg.Ix.totalLen
		f, ok := sg.Ix.filterFor(q)
		ss.filters = append(ss.filters, f)
		if ok {
			ss.live = append(ss.live, i)
		}
	}
	if len(terms) == 0 {
		ss.list()
		return ss.top.sorted(), nil
	}
	for _, term := range terms {
		if err := ss.score(term); err != nil {
			return nil, err
		}
	}
	ss.offerScored()
	return ss.top.sorted(), nil
}

// segSearch is one SearchSegs: the segments' filters and the collection
// figures BM25 takes from all of them.
type segSearch struct {
	segs    []Seg
	filters []filter
	live    []int // the segments a document of which can pass the filters
	n       int
	total   uint64
	top     *segTop
}

// pass reports whether document d of segment i passes the filters and is
// not hidden.
func (ss *segSearch) pass(i, d int) bool {
	if !ss.filters[i].pass(d) {
		return false
	}
	return ss.segs[i].Dead == nil || !ss.segs[i].Dead(ss.segs[i].Ix.issueOf(d))
}

// list offers every passing document (a query without terms).
func (ss *segSearch) list() {
	for _, i := range ss.live {
		for d := ss.segs[i].Ix.n - 1; d >= 0; d-- {
			if ss.pass(i, d) {
				ss.top.offer(SegHit{Seg: i, Doc: d})
			}
		}
	}
}

// score adds term's BM25 contribution, with its document frequency over
// all segments, to every passing document that holds it.
func (ss *segSearch) score(term string) error {
	found := make([]int, len(ss.segs))
	df := 0.0
	for _, i := range ss.live {
		found[i] = ss.segs[i].Ix.findTerm(term)
		if found[i] >= 0 {
			df += float64(ss.segs[i].Ix.u32(secDF, found[i]))
		}
	}
	if df == 0 {
		return nil
	}
	avgdl := 1.0
	if ss.n > 0 && ss.total > 0 {
		avgdl = float64(ss.total) / float64(ss.n)
	}
	idf := math.Log(1 + (float64(ss.n)-df+0.5)/(df+0.5))
	for _, i := range ss.live {
		if found[i] < 0 {
			continue
		}
		ix := ss.segs[i].Ix
		sc := ss.top.scoresOf(i)
		if float64(ix.u32(secDF, found[i])) > float64(ix.n)/64 {
			sc.densify(ix.n)
		}
		err := eachPosting(ix.postings(found[i]), ix.n, func(d, tf int) {
			if !ss.pass(i, d) {
				return
			}
			tfs := float64(tf)
			sc.add(d, idf*tfs*(k1+1)/(tfs+k1*(1-bb+bb*ix.docLen(d)/avgdl)))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// offerScored offers every scored document, segment by segment in the
// order each was first scored.
func (ss *segSearch) offerScored() {
	for i, sc := range ss.top.sc {
		if sc == nil {
			continue
		}
		for _, d := range sc.touched {
			s := sc.sparse[d]
			if sc.dense != nil {
				s = sc.dense[d]
			}
			ss.top.offer(SegHit{Seg: i, Doc: d, Score: s})
		}
	}
}

// segTop is the best hits over segments, with each segment's scores.
type segTop struct {
	best[SegHit]
	segs []Seg
	sc   []*scores
}

func newSegTop(segs []Seg, k int) *segTop {
	return &segTop{segs: segs, best: best[SegHit]{k: k, better: func(a, b SegHit) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		ta, tb := segs[a.Seg].Ix.time(a.Doc), segs[b.Seg].Ix.time(b.Doc)
		if ta != tb {
			return ta > tb
		}
		if a.Seg != b.Seg {
			return a.Seg > b.Seg
		}
		return a.Doc > b.Doc
	}}}
}

func (t *segTop) scoresOf(i int) *scores {
	if t.sc == nil {
		t.sc = make([]*scores, len(t.segs))
	}
	if t.sc[i] == nil {
		t.sc[i] = &scores{sparse: map[int]float64{}}
	}
	return t.sc[i]
}

// IssueOf is document d's issue (cheaper than Doc when only it is needed).
func (ix *Index) IssueOf(d int) int { return ix.issueOf(d) }

// Size is the encoded index's length in bytes.
func (ix *Index) Size() int { return len(ix.data) }
