package capture

import (
	"math"
	"slices"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/wordset"
)

// DuplicateThreshold is the word-set similarity at or above which two
// observations of one category say the same thing.
const DuplicateThreshold = 0.8

// Words is the normalised word set similarity compares (wordset.Of).
func Words(s string) map[string]bool { return wordset.Of(s) }

// Similarity is the Jaccard similarity of two word sets (wordset.Jaccard).
func Similarity(a, b map[string]bool) float64 { return wordset.Jaccard(a, b) }

// Dedupe drops every candidate whose content is at least threshold similar
// to an earlier one of the same category; a dropped candidate's files and
// source bytes are merged into the one kept (the earliest kept one it
// matches, as a pairwise comparison would find). Code changes are about
// their files, so two of them are duplicates only when their files are the
// same (edits of a.go and b.go in one folder read alike).
//
// It is near-linear, not pairwise: a session summary of 20,000 bullets
// took 30 s compared pair by pair, past every hook's deadline. Two word
// sets x and y with Jaccard(x, y) >= t share at least one of the first
// |x| - ceil(t*|x|) + 1 words of each, in any one fixed order of words
// (the prefix filter); ordering words rarest first makes those prefixes
// the words few candidates share, so each candidate is compared only with
// the few kept ones indexed under its prefix words, of a size within
// [t*|x|, |x|/t], and the similarity is checked exactly.
func Dedupe(cands []Candidate, threshold float64) []Candidate {
	out, _ := dedupe(nil, cands, threshold, 0)
	return out
}

// dedupe is Dedupe keeping at most maxKept candidates (0: all), and
// stopping with done's error once done is (nil: never).
//
// The prefix filter alone is not enough when every word is frequent: ten
// thousand one-sentence messages over a small vocabulary put most kept
// candidates under each prefix word, and each new one was compared with
// them all (17.8 s of CPU in `hook finish`). A capture keeps only its
// first MaxPerCapture anyway, so finish asks for a bounded number: a
// candidate past them is either a duplicate of one of them (merged, as
// before: the earliest kept one it matches is among them) or dropped, so
// each is compared with at most maxKept others and the pass is linear.
// Word sets are sorted slices of word ranks (rarest first), compared by a
// merge, not maps.
func dedupe(done func() error, cands []Candidate, threshold float64, maxKept int) ([]Candidate, error) {
	sets, err := rankedSets(done, cands)
	if err != nil {
		return nil, err
	}
	byCat := map[string]*dedupeIndex{}
	keep := len(cands)
	if maxKept > 0 {
		keep = min(keep, maxKept)
	}
	out := make([]Candidate, 0, keep)
	var stamp []int // per kept position: the candidate that last compared it
	for i, c := range cands {
		if i&255 == 0 && done != nil {
			if err := done(); err != nil {
				return nil, err
			}
		}
		set := sets[i]
		ci := byCat[string(c.Category)]
		if ci == nil {
			ci = &dedupeIndex{probe: map[int32][]int{}, threshold: threshold}
			byCat[string(c.Category)] = ci
		}
		prefix := set[:prefixLen(len(set), threshold)]
		for len(stamp) < len(ci.kept) {
			stamp = append(stamp, -1)
		}
		if dup := ci.match(c, set, prefix, out, stamp, i); dup >= 0 {
			k := ci.kept[dup].idx
			out[k].Files = mergeFiles(out[k].Files, c.Files)
			out[k].SourceBytes += c.SourceBytes
			continue
		}
		if maxKept > 0 && len(out) == maxKept {
			continue // past what the caller keeps: dropped
		}
		ci.add(len(out), set, prefix)
		out = append(out, c)
	}
	return out, nil
}

// rankedSets is each candidate's word set as the sorted ranks of its
// words, rarest first across all candidates (ties by the word): a set
// starts with its prefix.
func rankedSets(done func() error, cands []Candidate) ([][]int32, error) {
	words := make([][]string, len(cands))
	freq := map[string]int{}
	for i, c := range cands {
		if i&255 == 0 && done != nil {
			if err := done(); err != nil {
				return nil, err
			}
		}
		set := Words(c.Content)
		ws := make([]string, 0, len(set))
		for w := range set {
			ws = append(ws, w)
			freq[w]++
		}
		words[i] = ws
	}
	all := make([]string, 0, len(freq))
	for w := range freq {
		all = append(all, w)
	}
	sort.Slice(all, func(i, j int) bool {
		if freq[all[i]] != freq[all[j]] {
			return freq[all[i]] < freq[all[j]]
		}
		return all[i] < all[j]
	})
	rank := make(map[string]int32, len(all))
	for i, w := range all {
		rank[w] = int32(i)
	}
	sets := make([][]int32, len(cands))
	for i, ws := range words {
		set := make([]int32, len(ws))
		for j, w := range ws {
			set[j] = rank[w]
		}
		slices.Sort(set)
		sets[i] = set
	}
	return sets, nil
}

// dedupeIndex holds the kept candidates of one category, indexed by the
// words of their prefixes.
type dedupeIndex struct {
	kept      []dedupeKept
	probe     map[int32][]int // word rank -> positions in kept whose prefix holds it
	threshold float64
}

type dedupeKept struct {
	idx   int     // in the output
	words []int32 // word ranks, sorted
}

func (ci *dedupeIndex) add(idx int, w []int32, prefix []int32) {
	pos := len(ci.kept)
	ci.kept = append(ci.kept, dedupeKept{idx: idx, words: w})
	for _, word := range prefix {
		ci.probe[word] = append(ci.probe[word], pos)
	}
}

// match is the position of the earliest kept candidate c duplicates, or
// -1: only those sharing a prefix word are compared, and only when their
// sizes allow the threshold. stamp[pos] == self marks a kept candidate
// already compared with this one.
func (ci *dedupeIndex) match(c Candidate, w, prefix []int32, out []Candidate, stamp []int, self int) int {
	dup := -1
	for _, word := range prefix {
		for _, pos := range ci.probe[word] {
			if stamp[pos] == self || dup >= 0 && pos >= dup {
				continue
			}
			stamp[pos] = self
			if ci.similar(c, w, ci.kept[pos], out) {
				dup = pos
			}
		}
	}
	return dup
}

func (ci *dedupeIndex) similar(c Candidate, w []int32, k dedupeKept, out []Candidate) bool {
	n, m := float64(len(w)), float64(len(k.words))
	if m < ci.threshold*n-1e-9 || n < ci.threshold*m-1e-9 {
		return false
	}
	if c.Category == memory.CodeChange && !slices.Equal(c.Files, out[k.idx].Files) {
		return false
	}
	return jaccardSorted(w, k.words) >= ci.threshold
}

// jaccardSorted is wordset.Jaccard of two sorted rank sets.
func jaccardSorted(a, b []int32) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// prefixLen is how many of a set's n words (rarest first) the filter
// indexes: n - ceil(t*n) + 1, at least one.
func prefixLen(n int, t float64) int {
	if n == 0 {
		return 0
	}
	p := n - int(math.Ceil(t*float64(n)-1e-9)) + 1
	return max(1, min(p, n))
}

// Known drops candidates that repeat an existing observation (the store's
// recent contents of the same issue), so a session that re-states what
// memory already holds adds nothing.
func Known(cands []Candidate, existing []string, threshold float64) []Candidate {
	if len(existing) == 0 {
		return cands
	}
	sets := make([]map[string]bool, len(existing))
	for i, e := range existing {
		sets[i] = Words(e)
	}
	out := cands[:0:0]
	for _, c := range cands {
		w := Words(c.Content)
		dup := false
		for _, s := range sets {
			if Similarity(w, s) >= threshold {
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

func mergeFiles(a, b []string) []string {
	for _, f := range b {
		found := false
		for _, g := range a {
			if g == f {
				found = true
				break
			}
		}
		if !found {
			a = append(a, f)
		}
	}
	return a
}
