// Package memindex owns the ranked search index of the memory store: how
// text becomes terms, BM25 scoring with filters, and the compact binary
// file (.agentx/memory/search.idx) that lets a fresh process answer a query
// over 100K observations without parsing the JSON files.
//
// The index is derived data. The store's JSON files are the only source of
// truth; the index carries the fingerprint of the manifest it was built
// from, and a reader that finds a different fingerprint rebuilds it.
package memindex

import (
	"unicode"
	"unicode/utf8"
)

// isStop reports a stop word: dropped from documents and queries, as they
// occur everywhere. A switch rather than a map, so the package has no
// globals to build at process start (hooks pay start-up on every call).
func isStop(t string) bool {
	switch t {
	case "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further",
		"had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
		"i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my",
		"no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own",
		"same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
		"these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very",
		"was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
		"would", "you", "your", "yours":
		return true
	}
	return false
}

// maxTermLen bounds a term; longer runs (hashes, base64) are cut.
const maxTermLen = 48

// Tokenize splits text into terms: maximal runs of letters and digits,
// lower-cased, stop words dropped, lightly stemmed so "locks", "locking"
// and "locked" meet "lock". Word boundaries (not substrings) are the point:
// the old search matched `4` to issue 42 and `json` to `jsonl`.
func Tokenize(text string, emit func(term string)) {
	var buf [maxTermLen + utf8.UTFMax]byte
	n := 0
	flush := func() {
		if n == 0 {
			return
		}
		t := stem(string(buf[:n]))
		n = 0
		if !isStop(t) {
			emit(t)
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				flush()
				continue
			}
			if n < maxTermLen {
				buf[n] = c
				n++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		r = unicode.ToLower(r)
		if n+utf8.RuneLen(r) <= maxTermLen {
			n += utf8.EncodeRune(buf[n:], r)
		}
	}
	flush()
}

// Terms returns the distinct terms of text in first-seen order.
func Terms(text string) []string {
	var out []string
	seen := map[string]bool{}
	Tokenize(text, func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}

// stem is a deliberately small suffix stripper (not Porter): it folds the
// inflections developers vary in queries (plural, -ing, -ed, a final e), so
// "cache", "caches", "cached" and "caching" share a term. Documents and
// queries both pass through it, so over-stemming is harmless as long as it
// is consistent.
func stem(t string) string {
	if len(t) <= 3 || !isASCIIAlpha(t) {
		return t
	}
	switch {
	case hasSuffix(t, "ies") && len(t) > 4:
		t = t[:len(t)-3] + "y"
	case hasSuffix(t, "sses"):
		t = t[:len(t)-2]
	case hasSuffix(t, "es") && len(t) > 4 && !hasSuffix(t, "ses"):
		t = t[:len(t)-2]
	case hasSuffix(t, "ss"), hasSuffix(t, "us"), hasSuffix(t, "is"):
	case hasSuffix(t, "s"):
		t = t[:len(t)-1]
	}
	switch {
	case hasSuffix(t, "ing") && len(t) > 5:
		t = t[:len(t)-3]
	case hasSuffix(t, "ed") && len(t) > 4:
		t = t[:len(t)-2]
	}
	if len(t) > 3 && t[len(t)-1] == 'e' {
		t = t[:len(t)-1]
	}
	// A doubled final consonant left by -ing/-ed ("mapped" -> "mapp")
	// folds to the single one ("map").
	if n := len(t); n > 3 && t[n-1] == t[n-2] && t[n-1] != 's' && t[n-1] != 'l' && !isVowel(t[n-1]) {
		t = t[:n-1]
	}
	return t
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

func isASCIIAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}
