// Package sanitize owns the one sanitiser every egress uses: memory
// observations before they reach disk, GitHub comments, action logs. It
// applies the SPEC's security layers 1-3: private regions are removed,
// secrets are replaced by `[REDACTED:<kind>]`, and the result is cut to
// MaxChars characters.
//
// Every function here is pure and idempotent (f(f(x)) == f(x)), so text may
// pass through the sanitiser more than once on its way out (capture, then
// GitHub sync) without changing again. All patterns are RE2, linear in the
// input.
package sanitize

import (
	"strings"

	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// MaxChars is the most characters (runes) one observation may hold (SPEC
// 6.2, layer 3).
const MaxChars = 2000

// Text is the full egress sanitiser: Private, then Secrets, then a cut to
// MaxChars. Private comes first so an unclosed `<private>` hides the
// rest of the text before anything else looks at it; secrets are redacted
// before the cut so a key straddling the cut is never half-kept.
//
// Secrets only looks at the first scanLimit characters of a long text: no
// pattern has a trailing condition, so a secret that starts before the final
// cut is still recognised from its first scanLimit-MaxChars characters, and
// a megabyte of pasted log costs a millisecond, not a second.
func Text(s string) string {
	return shorten.Runes(Secrets(shorten.Runes(private(s, scanLimit), scanLimit)), MaxChars)
}

const scanLimit = 8 * MaxChars

const (
	openTag  = "<private>"
	closeTag = "</private>"
)

// Private removes every `<private>...</private>` region, tags included,
// matching tags case-insensitively. Regions nest: the text is hidden until
// the closing tag that balances the first opening one. An opening tag that
// is never closed hides everything after it. A stray closing tag is
// dropped.
//
// The scan appends to the output and checks the output's tail after every
// byte, so a tag that only forms once a region between its halves is
// removed (`<priv<private>x</private>ate>`) is caught too: the output never
// contains a complete tag, which is what makes Private idempotent, and it
// stays linear however the tags are interleaved.
func Private(s string) string { return private(s, -1) }

// private is Private that stops once the output holds limit characters
// (no limit when negative): the scan is streaming, so what it has written
// by then is what the whole text would give, but for a tag that a later
// byte might still complete at the very end, which Text's cut discards.
func private(s string, limit int) string {
	if !containsFold(s, "private>") {
		return s
	}
	out := make([]byte, 0, min(len(s), 4*limit+64))
	if limit < 0 {
		out = make([]byte, 0, len(s))
	}
	depth, runes := 0, 0
	for i := 0; i < len(s); {
		if limit >= 0 && runes >= limit+len(closeTag) {
			break
		}
		if depth > 0 {
			switch {
			case hasPrefixFold(s[i:], openTag):
				depth++
				i += len(openTag)
			case hasPrefixFold(s[i:], closeTag):
				depth--
				i += len(closeTag)
			default:
				i++
			}
			continue
		}
		out = append(out, s[i])
		if s[i]&0xC0 != 0x80 { // not a UTF-8 continuation byte
			runes++
		}
		i++
		if out[len(out)-1] != '>' {
			continue
		}
		switch {
		case hasSuffixFold(out, openTag):
			out = out[:len(out)-len(openTag)]
			runes -= len(openTag)
			depth = 1
		case hasSuffixFold(out, closeTag):
			out = out[:len(out)-len(closeTag)]
			runes -= len(closeTag)
		}
	}
	return string(out)
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func hasSuffixFold(b []byte, suffix string) bool {
	return len(b) >= len(suffix) && strings.EqualFold(string(b[len(b)-len(suffix):]), suffix)
}

// containsFold reports whether s contains the ASCII needle, which ends in
// '>', in any case, without allocating a lowered copy of s: it jumps from
// '>' to '>' (a vectorised byte search) and compares what precedes each.
func containsFold(s, needle string) bool {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return false
		}
		end := i + j + 1
		if end >= len(needle) && strings.EqualFold(s[end-len(needle):end], needle) {
			return true
		}
		i = end
	}
}
