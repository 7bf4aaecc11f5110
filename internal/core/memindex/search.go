package memindex

import (
	"container/heap"
	"math"
	"sort"
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
	agent, cat := -1, -1
	if q.Agent != "" {
		if agent = indexOf(ix.agents, q.Agent); agent < 0 {
			return nil, nil
		}
	}
	if q.Category != "" {
		if cat = indexOf(ix.cats, q.Category); cat < 0 {
			return nil, nil
		}
	}
	pass := func(d int) bool {
		if q.Issue != 0 && ix.issueOf(d) != q.Issue {
			return false
		}
		if agent >= 0 && int(ix.u16(secAgent, d)) != agent {
			return false
		}
		if cat >= 0 && int(ix.data[ix.sec[secCat]+uint64(d)]) != cat {
			return false
		}
		if q.Since != 0 || q.Until != 0 {
			t := ix.time(d)
			if (q.Since != 0 && t < q.Since) || (q.Until != 0 && t > q.Until) {
				return false
			}
		}
		return true
	}
	terms := Terms(q.Text)
	top := &topK{ix: ix, k: q.limit()}
	if len(terms) == 0 && strings.TrimSpace(q.Text) != "" {
		return nil, nil // only stop words or punctuation: nothing to rank by
	}
	if len(terms) == 0 {
		for d := ix.n - 1; d >= 0; d-- {
			if pass(d) {
				top.offer(Hit{Doc: d})
			}
		}
		return top.sorted(), nil
	}
	avgdl := 1.0
	if ix.n > 0 && ix.totalLen > 0 {
		avgdl = float64(ix.totalLen) / float64(ix.n)
	}
	scores := map[int]float64{}
	var dense []float64
	var touched []int
	for _, term := range terms {
		t := ix.findTerm(term)
		if t < 0 {
			continue
		}
		df := float64(ix.u32(secDF, t))
		idf := math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
		// A dense score array pays off once a term is common; a map keeps
		// rare-term queries from allocating per document.
		if dense == nil && df > float64(ix.n)/64 {
			dense = make([]float64, ix.n)
			for d, s := range scores {
				dense[d] = s
			}
		}
		err := eachPosting(ix.postings(t), ix.n, func(d, tf int) {
			if !pass(d) {
				return
			}
			f := float64(tf)
			s := idf * f * (k1 + 1) / (f + k1*(1-bb+bb*ix.docLen(d)/avgdl))
			if dense != nil {
				if dense[d] == 0 {
					touched = append(touched, d)
				}
				dense[d] += s
				return
			}
			if _, ok := scores[d]; !ok {
				touched = append(touched, d)
			}
			scores[d] += s
		})
		if err != nil {
			return nil, err
		}
	}
	for _, d := range touched {
		s := scores[d]
		if dense != nil {
			s = dense[d]
		}
		top.offer(Hit{Doc: d, Score: s})
	}
	return top.sorted(), nil
}

func indexOf(ss []string, s string) int {
	for i, v := range ss {
		if strings.EqualFold(v, s) {
			return i
		}
	}
	return -1
}

// topK keeps the best k hits in a min-heap (k < 0: all).
type topK struct {
	ix   *Index
	k    int
	hits []Hit
}

// better orders hits: higher score, then newer, then stored later.
func (t *topK) better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	ta, tb := t.ix.time(a.Doc), t.ix.time(b.Doc)
	if ta != tb {
		return ta > tb
	}
	return a.Doc > b.Doc
}

func (t *topK) Len() int           { return len(t.hits) }
func (t *topK) Less(i, j int) bool { return t.better(t.hits[j], t.hits[i]) }
func (t *topK) Swap(i, j int)      { t.hits[i], t.hits[j] = t.hits[j], t.hits[i] }
func (t *topK) Push(x any)         { t.hits = append(t.hits, x.(Hit)) }
func (t *topK) Pop() any {
	h := t.hits[len(t.hits)-1]
	t.hits = t.hits[:len(t.hits)-1]
	return h
}

func (t *topK) offer(h Hit) {
	if t.k < 0 || len(t.hits) < t.k {
		heap.Push(t, h)
		return
	}
	if t.better(h, t.hits[0]) {
		t.hits[0] = h
		heap.Fix(t, 0)
	}
}

func (t *topK) sorted() []Hit {
	sort.Slice(t.hits, func(i, j int) bool { return t.better(t.hits[i], t.hits[j]) })
	return t.hits
}
