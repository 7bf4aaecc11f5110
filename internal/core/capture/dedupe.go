package capture

import (
	"slices"

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
// source bytes are merged into the one kept. Code changes are about their
// files, so two of them are duplicates only when their files are the same
// (edits of a.go and b.go in one folder read alike). Quadratic in the number
// of candidates per category, which a capture keeps in the hundreds.
func Dedupe(cands []Candidate, threshold float64) []Candidate {
	type kept struct {
		idx   int
		words map[string]bool
	}
	byCat := map[string][]kept{}
	out := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		w := Words(c.Content)
		dup := -1
		for _, k := range byCat[string(c.Category)] {
			if c.Category == memory.CodeChange && !slices.Equal(c.Files, out[k.idx].Files) {
				continue
			}
			if Similarity(w, k.words) >= threshold {
				dup = k.idx
				break
			}
		}
		if dup >= 0 {
			out[dup].Files = mergeFiles(out[dup].Files, c.Files)
			out[dup].SourceBytes += c.SourceBytes
			continue
		}
		byCat[string(c.Category)] = append(byCat[string(c.Category)], kept{idx: len(out), words: w})
		out = append(out, c)
	}
	return out
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
