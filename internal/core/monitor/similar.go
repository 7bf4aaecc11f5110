package monitor

import (
	"strings"
	"unicode"
)

// Similarity is the word-set overlap at or above which two questions count
// as the same question asked again.
const Similarity = 0.8

// stopWords carry no meaning of their own: "should we use X" and "do we use
// X" are the same question.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "is": true, "are": true, "be": true, "it": true, "we": true, "i": true,
	"do": true, "does": true, "should": true, "can": true, "you": true, "this": true, "that": true,
	"with": true, "what": true, "which": true, "so": true, "at": true, "by": true, "as": true,
}

// words returns the normalised word set of s: lower case, split at every
// character that is neither a letter nor a digit, stop words dropped.
func words(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !stopWords[w] {
			set[w] = true
		}
	}
	return set
}

// jaccard is |a∩b| / |a∪b|; two empty sets are not similar (nothing to
// compare, so nothing repeats).
func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// Similar reports whether two texts are the same question in other words.
func Similar(a, b string) bool { return jaccard(words(a), words(b)) >= Similarity }
