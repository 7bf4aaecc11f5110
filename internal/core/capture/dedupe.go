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
	sets := make([]map[string]bool, len(cands))
	freq := map[string]int{}
	for i, c := range cands {
		sets[i] = Words(c.Content)
		for w := range sets[i] {
			freq[w]++
		}
	}
	byCat := map[string]*dedupeIndex{}
	out := make([]Candidate, 0, len(cands))
	for i, c := range cands {
		ci := byCat[string(c.Category)]
		if ci == nil {
			ci = &dedupeIndex{probe: map[string][]int{}, threshold: threshold}
			byCat[string(c.Category)] = ci
		}
		prefix := prefixWords(sets[i], freq, threshold)
		if dup := ci.match(c, sets[i], prefix, out); dup >= 0 {
			k := ci.kept[dup].idx
			out[k].Files = mergeFiles(out[k].Files, c.Files)
			out[k].SourceBytes += c.SourceBytes
			continue
		}
		ci.add(len(out), sets[i], prefix)
		out = append(out, c)
	}
	return out
}

// dedupeIndex holds the kept candidates of one category, indexed by the
// words of their prefixes.
type dedupeIndex struct {
	kept      []dedupeKept
	probe     map[string][]int // word -> positions in kept whose prefix holds it
	threshold float64
}

type dedupeKept struct {
	idx   int // in the output
	words map[string]bool
}

func (ci *dedupeIndex) add(idx int, w map[string]bool, prefix []string) {
	pos := len(ci.kept)
	ci.kept = append(ci.kept, dedupeKept{idx: idx, words: w})
	for _, word := range prefix {
		ci.probe[word] = append(ci.probe[word], pos)
	}
}

// match is the position of the earliest kept candidate c duplicates, or
// -1: only those sharing a prefix word are compared, and only when their
// sizes allow the threshold.
func (ci *dedupeIndex) match(c Candidate, w map[string]bool, prefix []string, out []Candidate) int {
	dup := -1
	seen := map[int]bool{}
	for _, word := range prefix {
		for _, pos := range ci.probe[word] {
			if seen[pos] || dup >= 0 && pos >= dup {
				continue
			}
			seen[pos] = true
			if ci.similar(c, w, ci.kept[pos], out) {
				dup = pos
			}
		}
	}
	return dup
}

func (ci *dedupeIndex) similar(c Candidate, w map[string]bool, k dedupeKept, out []Candidate) bool {
	n, m := float64(len(w)), float64(len(k.words))
	if m < ci.threshold*n-1e-9 || n < ci.threshold*m-1e-9 {
		return false
	}
	if c.Category == memory.CodeChange && !slices.Equal(c.Files, out[k.idx].Files) {
		return false
	}
	return Similarity(w, k.words) >= ci.threshold
}

// prefixWords is the prefix of w the filter indexes: its first
// |w| - ceil(t*|w|) + 1 words, rarest first (ties by the word).
func prefixWords(w map[string]bool, freq map[string]int, t float64) []string {
	if len(w) == 0 {
		return nil
	}
	words := make([]string, 0, len(w))
	for x := range w {
		words = append(words, x)
	}
	sort.Slice(words, func(i, j int) bool {
		if freq[words[i]] != freq[words[j]] {
			return freq[words[i]] < freq[words[j]]
		}
		return words[i] < words[j]
	})
	n := len(words) - int(math.Ceil(t*float64(len(words))-1e-9)) + 1
	return words[:max(1, min(n, len(words)))]
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
