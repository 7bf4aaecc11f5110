// Package suggest owns the "did you mean" of a mistyped name: the closest
// of the names a command knows (subcommands, flags, shells), or none when
// nothing is close enough to be a typo rather than another word.
package suggest

import "fmt"

// DidYouMean is ` (did you mean "x"?)` for the closest of names to got,
// or "" when none is close: at most a third of the word may differ.
func DidYouMean(got string, names []string) string {
	best, bestD := "", len(got)/3+1
	for _, n := range names {
		if d := Distance(got, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// Distance is the Levenshtein distance between a and b.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
