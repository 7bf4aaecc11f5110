package memindex

import (
	"encoding/binary"
	"math"
	"strings"
	"sync"
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
	// time is the document's, read once when it is offered: ties are
	// decided by it, and a common term's documents tie by the thousand
	// (each comparison of the heap read both times again).
	time int64
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
	if err := ss.scoreMerged(terms); err != nil {
		return nil, err
	}
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
	return ss.filters[i].pass(d) && (ss.segs[i].Dead == nil || !ss.segs[i].Dead(ss.segs[i].Ix.issueOf(d)))
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

// cursor walks one term's posting list in one segment.
type cursor struct {
	idf  float64
	p    []byte
	doc  int // the current document; -1 before the first, n at the end
	tf   int
	done bool
}

// skip is next's common case, small enough to be inlined into merge's
// loop (a call for every posting otherwise): a one-byte gap, the
// frequency after it, the document in range; false, having moved
// nothing, for any other, which next reads (and checks).
func (c *cursor) skip(n int) bool {
	p := c.p
	if len(p) < 2 || p[0] == 0 || p[0] >= 0x80 || c.doc+int(p[0]) >= n {
		return false
	}
	c.doc += int(p[0])
	c.tf = int(p[1])
	c.p = p[2:]
	return true
}

// next moves to the next posting (checked as eachPosting checks them).
func (c *cursor) next(n int) error {
	if len(c.p) == 0 {
		c.done = true
		return nil
	}
	// Most gaps of a common term fit one byte: read it without the
	// general decoder (the same value, checked the same).
	d, k := uint64(c.p[0]), 1
	if d >= 0x80 {
		d, k = binary.Uvarint(c.p)
	}
	if k <= 0 || len(c.p) < k+1 {
		return ErrFormat
	}
	c.doc += int(d)
	if c.doc < 0 || c.doc >= n || (d == 0 && c.doc != 0) {
		return ErrFormat
	}
	c.tf = int(c.p[k])
	c.p = c.p[k+1:]
	return nil
}

// scoreMerged ranks by BM25, each term with its document frequency over
// all segments. The terms' posting lists of a segment are merged by
// document (they are sorted), so each document's score is summed at once,
// in the terms' order, and offered once: no score array as large as the
// segment (a common term at 1M observations made one of 8 MB, a page fault
// per 512 documents) and no second pass over the scored documents.
func (ss *segSearch) scoreMerged(terms []string) error {
	avgdl := 1.0
	if ss.n > 0 && ss.total > 0 {
		avgdl = float64(ss.total) / float64(ss.n)
	}
	idfs, found := ss.termFigures(terms)
	for _, i := range ss.live {
		ix := ss.segs[i].Ix
		var cs []cursor
		for t := range terms {
			if idfs[t] < 0 || found[i][t] < 0 {
				continue
			}
			c := cursor{idf: idfs[t], p: ix.postings(found[i][t]), doc: -1}
			if err := c.next(ix.n); err != nil {
				return err
			}
			if !c.done {
				cs = append(cs, c)
			}
		}
		merge := ss.merge
		if len(cs) == 2 {
			merge = ss.merge2
		}
		if err := merge(i, cs, avgdl); err != nil {
			return err
		}
	}
	return nil
}

// termFigures are each term's idf over all segments (-1: no document
// holds it) and its number in each live segment (-1: absent).
func (ss *segSearch) termFigures(terms []string) (idfs []float64, found [][]int) {
	idfs = make([]float64, len(terms))
	found = make([][]int, len(ss.segs))
	for _, i := range ss.live {
		found[i] = make([]int, len(terms))
	}
	for t, term := range terms {
		df := 0.0
		for _, i := range ss.live {
			found[i][t] = ss.segs[i].Ix.findTerm(term)
			if found[i][t] >= 0 {
				df += float64(ss.segs[i].Ix.u32(secDF, found[i][t]))
			}
		}
		if df == 0 {
			idfs[t] = -1
			continue
		}
		idfs[t] = math.Log(1 + (float64(ss.n)-df+0.5)/(df+0.5))
	}
	return idfs, found
}

// merge walks segment i's cursors (in the terms' order) by document and
// offers each passing document with its summed score. It is the one
// loop every matching document goes through (1,900 for "deadlock queue"
// at 100K, most of them as good as the top's worst): the bound, then the
// score and the next lowest document in one pass over the cursors, the
// filters skipped when there are none.
func (ss *segSearch) merge(i int, cs []cursor, avgdl float64) error {
	ix := ss.segs[i].Ix
	f := &ss.filters[i]
	filtered := f.filters()
	memo, release := newContribMemo(cs)
	defer release()
	top := ss.top
	n := ix.n
	for d := firstDoc(cs); d >= 0; {
		// Once the top is full, a document whose terms' bounds sum under
		// its worst cannot enter it: it is not scored (nor filtered).
		// Hidden documents are told last, of those that would enter the
		// top: the test reads each one's issue (a page of the index
		// apart from the rest), for the few documents of a few issues.
		ok := (!top.full() || !top.below(boundAt(cs, d))) && (!filtered || f.pass(d))
		var dl uint16
		if ok {
			dl = ix.u16(secDocLen, d)
		}
		score, next := 0.0, -1
		for k := range cs {
			c := &cs[k]
			if c.doc != d || c.done {
				next = lowerDoc(next, c)
				continue
			}
			if ok {
				v := memo.kept(k, c.tf, dl)
				if v == 0 {
					v = memo.fill(k, c, dl, avgdl)
				}
				score += v
			}
			if !c.skip(n) {
				if err := c.next(n); err != nil {
					return err
				}
			}
			next = lowerDoc(next, c)
		}
		if ok && !top.below(score) && !top.olderTie(ix, score, d) {
			top.offerLive(SegHit{Seg: i, Doc: d, Score: score})
		}
		d = next
	}
	return nil
}

// admits reports whether a document whose terms' bounds sum to bound
// can enter the top: it is not full, or the sum is not under its worst.
func (t *segTop) admits(bound float64) bool { return !t.full() || !t.below(bound) }

// olderTie reports a document of segment ix that the full top turns
// away for a tie with its worst: the same score, an older time. A common
// term's documents tie by the thousand (most of "deadlock queue"'s at
// 100K), each turned away here by one read of its time, without
// offerLive's call.
func (t *segTop) olderTie(ix *Index, score float64, d int) bool {
	return t.full() && score == t.hits[0].Score && ix.time(d) < t.hits[0].time
}

// lowerDoc is the lower of next (-1: none yet) and c's document (none
// when c is done).
func lowerDoc(next int, c *cursor) int {
	if c.done || (next >= 0 && next <= c.doc) {
		return next
	}
	return c.doc
}

// boundAt is the most document d, on the cursors at d, can score: a term
// gives at most idf·(k1+1), strictly more than any score it gives
// (k1·(1-bb) > 0 in the denominator), so turning away a document under
// the top's worst by it ranks as scoring every one.
func boundAt(cs []cursor, d int) float64 {
	bound := 0.0
	for k := range cs {
		if !cs[k].done && cs[k].doc == d {
			bound += cs[k].idf * (k1 + 1)
		}
	}
	return bound
}

// contribMemo keeps each term's BM25 contribution by frequency (up to
// memoTFs: a term of the summary is in the content too, so 2 is the
// usual one) and document length: a common term's documents have a few
// dozen lengths, and the ties that fill the top's last places (a
// thousand documents of one score for "deadlock queue" at 100K) are the
// same few sums again. A kept value is the one the expression gives, so
// the scores are the same to the bit.
type contribMemo []float64 // by cursor, frequency, length; 0: not computed yet (a contribution is > 0)

const (
	memoTFs  = 4
	memoLens = 128
)

// memos keep the memos of finished merges for the next: 4 KB a term,
// which a search allocated and left to the collector (a process that
// searches many times collected every few hundred searches).
var memos = sync.Pool{New: func() any { return new(contribMemo) }}

// newContribMemo is a memo for the cursors cs, cleared; release gives it
// back when the merge is done with it.
func newContribMemo(cs []cursor) (m contribMemo, release func()) {
	p := memos.Get().(*contribMemo)
	if n := len(cs) * memoTFs * memoLens; cap(*p) >= n {
		*p = (*p)[:n]
		clear(*p)
	} else {
		*p = make(contribMemo, n)
	}
	return *p, func() { memos.Put(p) }
}

// kept is term k's contribution at frequency tf and length dl as kept (0:
// not computed yet, or no place for it). It and fill were one method,
// which the compiler did not inline into merge's loop: a call for each
// term of each document.
func (m contribMemo) kept(k, tf int, dl uint16) float64 {
	if t := uint(tf - 1); t < memoTFs && dl < memoLens {
		return m[(uint(k)*memoTFs+t)*memoLens+uint(dl)]
	}
	return 0
}

// fill is term k's (cursor c's) contribution at c's frequency and length
// dl when not kept: computed, and kept where it has a place (a few dozen
// calls a search).
func (m contribMemo) fill(k int, c *cursor, dl uint16, avgdl float64) float64 {
	v := bm25(c.idf, c.tf, dl, avgdl)
	if t := uint(c.tf - 1); t < memoTFs && dl < memoLens {
		m[(uint(k)*memoTFs+t)*memoLens+uint(dl)] = v
	}
	return v
}

// bm25 is one term's contribution to a document's score.
func bm25(idf float64, tf int, dl uint16, avgdl float64) float64 {
	tfs := float64(tf)
	return idf * tfs * (k1 + 1) / (tfs + k1*(1-bb+bb*float64(dl)/avgdl))
}

// firstDoc is the lowest document the cursors are on (-1: all done).
func firstDoc(cs []cursor) int {
	d := -1
	for k := range cs {
		if !cs[k].done && (d < 0 || cs[k].doc < d) {
			d = cs[k].doc
		}
	}
	return d
}

// segTop is the best hits over segments.
type segTop struct {
	best[SegHit]
	segs []Seg
}

// below reports whether a hit of this score cannot enter the top: the
// top is full and its worst scores higher (most documents of a common
// term, turned away here without the comparison's reads of their times).
func (t *segTop) below(score float64) bool {
	return t.full() && score < t.hits[0].Score
}

// offer is best's, with the hit's time read first.
func (t *segTop) offer(h SegHit) {
	h.time = t.segs[h.Seg].Ix.time(h.Doc)
	t.best.offer(h)
}

// offerLive is offer for a scored hit not under the top's worst, that is
// not hidden (its segment's Dead holds its issue). A tie the worst keeps
// (most of a common term's documents at the worst score) is turned away
// by one read of its time and a comparison; hidden is asked only of a hit
// the top takes: the question reads the document's issue, a column of
// the index apart from the times (a page fault a few hundred documents,
// in a process that maps the index to search once), and a hit the top
// turns away is turned away either way.
func (t *segTop) offerLive(h SegHit) {
	sg := &t.segs[h.Seg]
	h.time = sg.Ix.time(h.Doc)
	full := t.full()
	if full && !segBetter(h, t.hits[0]) {
		return
	}
	if sg.Dead != nil && sg.Dead(sg.Ix.issueOf(h.Doc)) {
		return
	}
	if !full {
		t.push(h)
		return
	}
	t.replaceWorst(h)
}

// push adds h to the top, not full, and sifts it up as container/heap's
// Push would (the same places), without Push's boxing of the hit (an
// allocation for each of the first k hits of a search).
func (t *segTop) push(h SegHit) {
	t.hits = append(t.hits, h)
	hs := t.hits
	j := len(hs) - 1
	for j > 0 {
		i := (j - 1) / 2
		if !segBetter(hs[i], hs[j]) {
			break
		}
		hs[i], hs[j] = hs[j], hs[i]
		j = i
	}
}

// replaceWorst puts h, better than the worst, in the worst's place and
// sifts it down as container/heap's Fix would (the same places), with the
// comparison inline: the ties of a common term replace the worst hundreds
// of times a search, each a few comparisons through best's interface.
func (t *segTop) replaceWorst(h SegHit) {
	hs := t.hits
	i := 0
	for {
		c := 2*i + 1
		if c >= len(hs) {
			break
		}
		if r := c + 1; r < len(hs) && segBetter(hs[c], hs[r]) {
			c = r // the worse child
		}
		if !segBetter(h, hs[c]) {
			break
		}
		hs[i] = hs[c]
		i = c
	}
	hs[i] = h
}

// full reports whether the top holds all it keeps.
func (t *segTop) full() bool { return t.k > 0 && len(t.hits) == t.k }

// segBetter is the segments' ranking: higher score, then newer, then the
// later segment, then the later document.
func segBetter(a, b SegHit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.time != b.time {
		return a.time > b.time
	}
	if a.Seg != b.Seg {
		return a.Seg > b.Seg
	}
	return a.Doc > b.Doc
}

func newSegTop(segs []Seg, k int) *segTop {
	t := &segTop{segs: segs, best: best[SegHit]{k: k, better: segBetter}}
	if k > 0 && k <= DefaultLimit*8 {
		t.hits = make([]SegHit, 0, k) // one allocation, not one a doubling
	}
	return t
}

// IssueOf is document d's issue (cheaper than Doc when only it is needed).
func (ix *Index) IssueOf(d int) int { return ix.issueOf(d) }

// Size is the encoded index's length in bytes.
func (ix *Index) Size() int { return len(ix.data) }
