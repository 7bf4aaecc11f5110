package sanitize

import (
	"regexp"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/lazy"
)

// ZeroWidthSpace goes between `@` and a name so GitHub renders the text
// unchanged but notifies nobody (the way Renovate and Dependabot quote
// upstream release notes).
const ZeroWidthSpace = "\u200b"

// mentionRe finds `@login` and `@org/team` where GitHub would link them:
// not after a word character (an e-mail address), a login of letters,
// digits and inner hyphens.
var mentionRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_\x60/@.-])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9_.-]+)?)`)
}}

// Mentions neutralises @mentions for GitHub egress: `@user` becomes
// `@<U+200B>user`, so text copied from an agent's session (which may quote
// people or teams) never pings anyone. Inline code spans and fenced code
// blocks are left as they are: GitHub does not notify from code, and code
// must stay copyable. Idempotent.
func Mentions(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	inFence := false
	for len(s) > 0 {
		line, rest, nl := strings.Cut(s, "\n")
		s = rest
		trimmed := strings.TrimLeft(line, " ")
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			b.WriteString(line)
		} else if inFence {
			b.WriteString(line)
		} else {
			b.WriteString(mentionsInLine(line))
		}
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// mentionsInLine neutralises mentions outside backtick code spans.
func mentionsInLine(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(neutralise(line))
			return b.String()
		}
		// A span is closed by the next run of the same number of backticks.
		n := 1
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		fence := line[i : i+n]
		end := strings.Index(line[i+n:], fence)
		if end < 0 {
			b.WriteString(neutralise(line))
			return b.String()
		}
		b.WriteString(neutralise(line[:i]))
		b.WriteString(line[i : i+n+end+n])
		line = line[i+n+end+n:]
	}
}

func neutralise(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range mentionRe.Get().FindAllStringSubmatchIndex(s, -1) {
		at := loc[3] // end of the character before '@'
		b.WriteString(s[last : at+1])
		b.WriteString(ZeroWidthSpace)
		last = at + 1
	}
	b.WriteString(s[last:])
	return b.String()
}
