package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Clean is the sanitiser for text that is stored whole (ledger entries,
// spooled summaries): private regions out, then secrets, with no cut.
// Idempotent, like Text, which is Clean cut to MaxChars. Invisible
// characters go first (a secret or a tag split by a zero-width space is
// whole again), host-reserved tags and role lines are neutralised last
// (Neutralize: stored text stays data, issue 32).
func Clean(s string) string { return Neutralize(Secrets(Private(dropInvisible(s)))) }

// Terminal makes text safe to print on a terminal: ANSI escape sequences
// (CSI such as colours and cursor moves, OSC such as window titles and
// hyperlinks, and the rest) are removed whole, and so are other control
// characters but '\n' and '\t', C1 controls, bidirectional overrides and
// isolates (text that reads differently than it runs) and line separators
// (U+2028, U+2029: a line break a reader does not expect). Invalid UTF-8
// becomes U+FFFD. Agents and commenters write what agentx prints, and a
// terminal obeys what it is sent: a stored OSC 52 sets the clipboard.
func Terminal(s string) string {
	if !needsTerminal(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == 0x9b: // C1 CSI: parameters and a final byte follow
			i += n + csiLen(s[i+n:])
			continue
		case r == 0x9d || r == 0x90 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, PM, APC
			i += n + stringLen(s[i+n:])
			continue
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case Invisible(r):
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

// Invisible reports whether r is a character Terminal drops: a control
// character (C0, DEL, C1), a bidirectional override or isolate, or a line
// or paragraph separator. '\n' and '\t' are controls too: callers that
// keep them test for them first.
func Invisible(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}

// needsTerminal reports whether Terminal would change s: the fast path
// for the plain ASCII text most output is.
func needsTerminal(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return true
		}
	}
	return false
}

// escapeLen is the length of the escape sequence s starts with (s[0] is
// ESC): CSI to its final byte, OSC/DCS/PM/APC/SOS to their terminator,
// anything else ESC and one character (ESC alone at the end: 1).
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + csiLen(s[2:])
	case ']', 'P', '^', '_', 'X':
		return 2 + stringLen(s[2:])
	}
	_, n := utf8.DecodeRuneInString(s[1:])
	return 1 + n
}

// csiLen is the length of a CSI sequence's parameters and final byte
// (0x40-0x7e). A sequence broken by another control ends there.
func csiLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x40 && c <= 0x7e {
			return i + 1
		}
		if c < 0x20 || c >= 0x7f {
			return i
		}
	}
	return len(s)
}

// stringLen is the length of a control string's body and terminator: BEL,
// ESC \ or the C1 ST (U+009C). An unterminated string runs to the end of
// the line, so one stray ESC ] cannot hide the rest of the text.
func stringLen(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case s[i] == '\n':
			return i
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
	}
	return len(s)
}

// IncompleteTail is the length of the end of s that may be the start of
// something Terminal must see whole: a UTF-8 character cut short, or an
// escape sequence without its final byte or terminator (none runs past a
// newline). A writer that sanitises a stream keeps it back for the next
// write, so a sequence split between two writes is still removed whole.
func IncompleteTail(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				n = len(s) - i
			}
			break
		}
	}
	j := strings.LastIndexByte(s, 0x1b)
	if j < 0 || strings.IndexByte(s[j:], '\n') >= 0 {
		return n
	}
	if e := s[j:]; escapeUnfinished(e) {
		n = max(n, len(e))
	}
	return n
}

// escapeUnfinished reports whether e (ESC and what follows, up to the end
// of the text) lacks the end escapeLen looks for.
func escapeUnfinished(e string) bool {
	if len(e) < 2 {
		return true
	}
	switch e[1] {
	case '[':
		for i := 2; i < len(e); i++ {
			if c := e[i]; c >= 0x40 && c <= 0x7e || c < 0x20 || c >= 0x7f {
				return false
			}
		}
		return true
	case ']', 'P', '^', '_', 'X':
		return strings.IndexByte(e, 0x07) < 0 && !strings.Contains(e, "\u009c")
	}
	return !utf8.FullRuneInString(e[1:])
}
