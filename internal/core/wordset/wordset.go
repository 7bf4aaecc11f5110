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

// stopWords carry no meaning of their own: "should we use X" and "do we use
// X" are the same question, "the cache was slow" and "cache slow" the same
// fact.
var stopWords = map[string]bool{
	"an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true, "on": true,
	"for": true, "is": true, "are": true, "be": true, "it": true, "we": true, "do": true, "does": true,
	"should": true, "can": true, "you": true, "this": true, "that": true, "with": true, "what": true,
	"which": true, "so": true, "at": true, "by": true, "as": true, "was": true, "but": true, "not": true,
	"all": true, "its": true, "from": true, "have": true, "has": true, "will": true, "into": true,
	"then": true, "than": true,
}

// Of returns the word set of s: lower-cased runs of letters and digits,
// stop words and one-letter words dropped (numbers of any length are kept:
// "limit 5" and "limit 6" are different questions).
func Of(s string) Set {
	set := Set{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if stopWords[w] || (len(w) < 2 && !unicode.IsDigit(rune(w[0]))) {
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
