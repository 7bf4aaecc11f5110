package memindex

import (
	"math"
	"strings"
)

// BM25 parameters: the usual defaults, which suit short texts well.
const (
	k1 = 1.2
	bb = 0.75
)

// DefaultLimit is how many rows a search returns unless asked otherwise.
const DefaultLimit = 20

// Query is one search. Text is matched with OR semantics and ranked with
// BM25; the other fields are filters (zero values: no filter). With no
// terms in Text, the filtered documents are listed newest first.
type Query struct {
	Text     string
	Agent    string
	Category string
	Issue    int
	// IssueSet makes Issue a filter even when it is 0 (the old chat
	// integration's issue); otherwise 0 means any issue.
	IssueSet bool
	Since    int64 // epoch ms, inclusive
	Until    int64 // epoch ms, inclusive
	Limit    int   // 0: DefaultLimit; negative: no limit
}

// Hit is one ranked document.
type Hit struct {
	Doc   int
	Score float64
}

func (q Query) limit() int {
	if q.Limit == 0 {
		return DefaultLimit
	}
	return q.Limit
}

// Search ranks the documents for q. Ties (and the filter-only listing) are
// broken by recency: newer first, then later-stored first.
func (ix *Index) Search(q Query) ([]Hit, error) {
	f, ok := ix.filterFor(q)
	if !ok {
		return nil, nil // an agent or category no document has
	}
	terms := Terms(q.Text)
	top := newTopK(ix, q.limit())
	if len(terms) == 0 && strings.TrimSpace(q.Text) != "" {
		return nil, nil // only stop words or punctuation: nothing to rank by
	}
	if len(terms) == 0 {
		for d := ix.n - 1; d >= 0; d-- {
			if f.pass(d) {
				top.offer(Hit{Doc: d})
			}
		}
		return top.sorted(), nil
	}
	sc := scores{sparse: map[int]float64{}}
	for _, term := range terms {
		if err := ix.score(term, f, &sc); err != nil {
			return nil, err
		}
	}
	sc.offerTo(top)
	return top.sorted(), nil
}

// filter is a Query's filters resolved against the index's tables.
type filter struct {
	ix           *Index
	issue        int
	issueSet     bool
	agent, cat   int // -1: any
	since, until int64
}

// filterFor resolves q's filters; ok is false when q names an agent or a
// category no document has, so nothing can pass.
func (ix *Index) filterFor(q Query) (f filter, ok bool) {
	f = filter{ix: ix, issue: q.Issue, issueSet: q.IssueSet || q.Issue != 0, agent: -1, cat: -1, since: q.Since, until: q.Until}
	if q.Agent != "" {
		if f.agent = indexOf(ix.agents, q.Agent); f.agent < 0 {
			return f, false
		}
	}
	if q.Category != "" {
		if f.cat = indexOf(ix.cats, q.Category); f.cat < 0 {
			return f, false
		}
	}
	return f, true
}

// filters reports whether f filters at all (pass is true of every
// document otherwise).
func (f filter) filters() bool {
	return f.issueSet || f.agent >= 0 || f.cat >= 0 || f.since != 0 || f.until != 0
}

// pass reports whether document d passes every filter.
func (f filter) pass(d int) bool {
	ix := f.ix
	switch {
	case f.issueSet && ix.issueOf(d) != f.issue:
		return false
	case f.agent >= 0 && int(ix.u16(secAgent, d)) != f.agent:
		return false
	case f.cat >= 0 && int(ix.data[ix.sec[secCat]+uint64(d)]) != f.cat:
		return false
	}
	if f.since == 0 && f.until == 0 {
		return true
	}
	t := ix.time(d)
	return (f.since == 0 || t >= f.since) && (f.until == 0 || t <= f.until)
}

// score adds term's BM25 contribution to every document that contains it
// and passes f.
func (ix *Index) score(term string, f filter, sc *scores) error {
	t := ix.findTerm(term)
	if t < 0 {
		return nil
	}
	avgdl := 1.0
	if ix.n > 0 && ix.totalLen > 0 {
		avgdl = float64(ix.totalLen) / float64(ix.n)
	}
	df := float64(ix.u32(secDF, t))
	idf := math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
	// A dense score array pays off once a term is common; a map keeps
	// rare-term queries from allocating per document.
	if df > float64(ix.n)/64 {
		sc.densify(ix.n)
	}
	return eachPosting(ix.postings(t), ix.n, func(d, tf int) {
		if !f.pass(d) {
			return
		}
		tfs := float64(tf)
		sc.add(d, idf*tfs*(k1+1)/(tfs+k1*(1-bb+bb*ix.docLen(d)/avgdl)))
	})
}

// scores accumulates per-document scores, sparse until a common term makes
// a dense array cheaper. touched lists the scored documents in first-scored
// order, so offering them does not depend on map order.
type scores struct {
	sparse  map[int]float64
	dense   []float64
	touched []int
}

func (sc *scores) densify(n int) {
	if sc.dense != nil {
		return
	}
	sc.dense = make([]float64, n)
	for d, s := range sc.sparse {
		sc.dense[d] = s
	}
}

func (sc *scores) add(d int, s float64) {
	if sc.dense != nil {
		if sc.dense[d] == 0 {
			sc.touched = append(sc.touched, d)
		}
		sc.dense[d] += s
		return
	}
	if _, ok := sc.sparse[d]; !ok {
		sc.touched = append(sc.touched, d)
	}
	sc.sparse[d] += s
}

func (sc *scores) offerTo(top *best[Hit]) {
	for _, d := range sc.touched {
		s := sc.sparse[d]
		if sc.dense != nil {
			s = sc.dense[d]
		}
		top.offer(Hit{Doc: d, Score: s})
	}
}

func indexOf(ss []string, s string) int {
	for i, v := range ss {
		if strings.EqualFold(v, s) {
			return i
		}
	}
	return -1
}

// newTopK keeps the best k hits of one index (k < 0: all): higher score,
// then newer, then stored later.
func newTopK(ix *Index, k int) *best[Hit] {
	return &best[Hit]{k: k, better: func(a, b Hit) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		ta, tb := ix.time(a.Doc), ix.time(b.Doc)
		if ta != tb {
			return ta > tb
		}
		return a.Doc > b.Doc
	}}
}
