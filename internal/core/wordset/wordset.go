// Package wordset owns the one notion of "the same words" the toolkit uses:
// a text's normalised word set and the Jaccard similarity of two sets. The
// monitor uses it to see a question asked again, memory capture to drop
// near-duplicate observations, recall and compaction to relate them.
package wordset

import (
	"strings"
	"unicode"
)

// Set is a normalised word set.
type Set map[string]bool

// isStopWord reports a word that carries no meaning of its own: "should
// we use X" and "do we use X" are the same question, "the cache was slow"
// and "cache slow" the same fact. (A switch, not a map: nothing to build
// when the process starts.)
func isStopWord(w string) bool {
	switch w {
	case "an", "the", "and", "or", "of", "to", "in", "on", "for", "is", "are", "be", "it",
		"we", "do", "does", "should", "can", "you", "this", "that", "with", "what", "which",
		"so", "at", "by", "as", "was", "but", "not", "all", "its", "from", "have", "has",
		"will", "into", "then", "than":
		return true
	}
	return false
}

// Of returns the word set of s: lower-cased runs of letters and digits,
// stop words and one-letter words dropped (numbers of any length are kept:
// "limit 5" and "limit 6" are different questions).
func Of(s string) Set {
	set := Set{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if isStopWord(w) || (len(w) < 2 && !unicode.IsDigit(rune(w[0]))) {
			continue
		}
		set[w] = true
	}
	return set
}

// Jaccard is |a∩b| / |a∪b|. Two empty sets score 0: nothing was said, so
// nothing was repeated.
func Jaccard(a, b Set) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
