package memory

import (
	"math/rand/v2"
	"testing"
)

// objectEndByByte is objectEnd as it was, one byte at a time: the
// reference the quote-jumping one is held to.
func objectEndByByte(b []byte) int {
	depth, inStr, esc := 0, false, false
	for i, c := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// objectEnd finds the same end as the byte-at-a-time scan, on rows and
// their prefixes and on random text made of the characters that matter
// (quotes, runs of backslashes, brackets inside and outside strings).
func TestObjectEndMatchesByteScan(t *testing.T) {
	t.Parallel()
	fixed := []string{
		`{"id":"a","content":"x \"quoted\" {not} [an] end\\"}, {"next":1}`,
		`{"a":"\\\\\"","b":["}",{"c":"\\"}]} tail`,
		`{"a":"unterminated \"`,
		`  {"a":1}`,
		`"a"}`,
		`]`,
		``,
	}
	for _, s := range fixed {
		for k := 0; k <= len(s); k++ {
			if got, want := objectEnd([]byte(s[:k])), objectEndByByte([]byte(s[:k])); got != want {
				t.Fatalf("objectEnd(%q) = %d, want %d", s[:k], got, want)
			}
		}
	}
	r := rand.New(rand.NewPCG(35, 62))
	alphabet := []byte(`{}[]"\\\\\\ax:,`)
	for range 200_000 {
		b := make([]byte, 1+r.IntN(40))
		b[0] = '{' // as a row starts; the rest at random
		if r.IntN(8) == 0 {
			b[0] = alphabet[r.IntN(len(alphabet))]
		}
		for i := 1; i < len(b); i++ {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if got, want := objectEnd(b), objectEndByByte(b); got != want {
			t.Fatalf("objectEnd(%q) = %d, want %d", b, got, want)
		}
	}
}
