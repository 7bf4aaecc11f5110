package sync

import (
	"regexp"
	"strings"
	"sync"
)

// zeroWidthSpace goes between an at sign and a name: the text reads the
// same, and GitHub links and notifies nobody.
const zeroWidthSpace = "\u200b"

// atSignRe finds what GitHub's renderer turns into an at sign: the sign
// itself and the HTML character references for it.
var atSignRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`@|&(?:#0*64|#[xX]0*40|commat);`)
})

// Unmention neutralises every at sign GitHub could read as a mention or a
// team mention, whatever the Markdown around it: a zero-width space goes
// after each at sign (or character reference for one) that a name
// character or a character reference follows. It does not parse Markdown,
// so no construct it would misread (an indented or unclosed fence, a
// backtick in an info string, a longer fence holding a shorter one,
// emphasis or a tag right before the name) can let one through. The price:
// in code too, and in e-mail addresses, the at sign is followed by the
// invisible space. Idempotent.
func Unmention(s string) string {
	if !strings.ContainsAny(s, "@&") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	last := 0
	for _, loc := range atSignRe().FindAllStringIndex(s, -1) {
		end := loc[1]
		b.WriteString(s[last:end])
		last = end
		if end < len(s) && startsName(s[end]) {
			b.WriteString(zeroWidthSpace)
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// startsName reports whether c may begin what follows a mention's at
// sign: a login's first character, or a character reference that may
// spell one.
func startsName(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '&'
}
