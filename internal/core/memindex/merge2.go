package memindex

// merge2 is merge for two cursors, a two-word query (the usual one, and
// the bench's three): the same documents in the same order, the same
// sums in the same order (so the same scores to the bit), the same bound,
// filters, ties and errors, without the loops over the cursors that
// merge makes for every document (issue 35: "deadlock queue" at 100K
// scores 1,900 documents, each as good as the top's worst).
func (ss *segSearch) merge2(i int, cs []cursor, avgdl float64) error {
	ix := ss.segs[i].Ix
	f := &ss.filters[i]
	filtered := f.filters()
	memo, release := newContribMemo(cs)
	defer release()
	top := ss.top
	n := ix.n
	a, b := &cs[0], &cs[1]
	// boundAt's terms, each the product it computes.
	ma, mb := a.idf*(k1+1), b.idf*(k1+1)
	for !a.done || !b.done {
		d, inA, inB := pairAt(a, b)
		ok := top.admits(pairBound(inA, inB, ma, mb)) && (!filtered || f.pass(d))
		var dl uint16
		if ok {
			dl = ix.u16(secDocLen, d)
		}
		score := 0.0
		if inA && ok {
			v := memo.kept(0, a.tf, dl)
			if v == 0 {
				v = memo.fill(0, a, dl, avgdl)
			}
			score += v
		}
		if inB && ok {
			v := memo.kept(1, b.tf, dl)
			if v == 0 {
				v = memo.fill(1, b, dl, avgdl)
			}
			score += v
		}
		// next's only error is ErrFormat.
		if inA && !a.skip(n) && a.next(n) != nil {
			return ErrFormat
		}
		if inB && !b.skip(n) && b.next(n) != nil {
			return ErrFormat
		}
		if ok && !top.below(score) && !top.olderTie(ix, score, d) {
			top.offerLive(SegHit{Seg: i, Doc: d, Score: score})
		}
	}
	return nil
}

// pairBound is boundAt for two cursors, inA and inB saying which are on
// the document, ma and mb their terms' bounds.
func pairBound(inA, inB bool, ma, mb float64) float64 {
	bound := 0.0
	if inA {
		bound += ma
	}
	if inB {
		bound += mb
	}
	return bound
}

// pairAt is the lower document the cursors a and b are on (not both
// done) and which of them are on it.
func pairAt(a, b *cursor) (d int, inA, inB bool) {
	inA = !a.done && (b.done || a.doc <= b.doc)
	inB = !b.done && (a.done || b.doc <= a.doc)
	if inA {
		return a.doc, inA, inB
	}
	return b.doc, inA, inB
}
