// Package sanitize owns the one sanitiser every egress uses: memory
// observations before they reach disk, ledger entries, spooled captures,
// GitHub comments, action logs. It applies the SPEC's security layers 1-3:
// private regions are removed, secrets are replaced by `[REDACTED:<kind>]`
// (the kinds are one table, after gitleaks' default rules), and Text cuts
// the result to MaxChars characters; Clean does the same without the cut.
// Terminal is the output side: what a terminal would obey (escape
// sequences, control characters, bidirectional overrides) is removed from
// text printed to one.
//
// Every function here is pure and idempotent (f(f(x)) == f(x)), so text may
// pass through the sanitiser more than once on its way out (capture, then
// GitHub sync) without changing again. All patterns are RE2, linear in the
// input.
package sanitize

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// MaxChars is the most characters (runes) one observation may hold (SPEC
// 6.2, layer 3).
const MaxChars = 2000

// Text is the full egress sanitiser: Private, then Secrets, then a cut to
// MaxChars. Private comes first so an unclosed `<private>` hides the
// rest of the text before anything else looks at it; secrets are redacted
// before the cut so a key straddling the cut is never half-kept. Some of
// gitleaks' rules end in a condition on what follows the secret, so a cut
// can make a match where the whole text had none: the cut text is
// sanitised again until it holds still, which keeps Text idempotent.
//
// Secrets only looks at the first scanLimit characters of a long text: a
// secret that starts before the final cut is still recognised from its
// first scanLimit-MaxChars characters, and a megabyte of pasted log costs
// a millisecond, not a second.
//
// Like Clean, Text drops invisible characters first and neutralises
// host-reserved tags and role lines last (Neutralize), on each pass.
func Text(s string) string {
	out, _ := TextChanges(s)
	return out
}

// Changes say what Text did to a text, a bit each.
type Changes uint8

const (
	// ChangedInvisible: control or invisible characters were removed.
	ChangedInvisible Changes = 1 << iota
	// ChangedPrivate: private regions were removed.
	ChangedPrivate
	// ChangedSecret: secrets were replaced by [REDACTED:<kind>].
	ChangedSecret
	// ChangedMarkup: host-reserved tags or role lines were defused.
	ChangedMarkup
	// ChangedCut: the text was cut to MaxChars characters.
	ChangedCut
)

// String says what was done, for a warning: "removed private parts and
// redacted secrets"; "" when nothing was.
func (c Changes) String() string {
	var done []string
	for _, p := range []struct {
		bit  Changes
		said string
	}{
		{ChangedPrivate, "removed private parts"}, {ChangedSecret, "redacted secrets"}, {ChangedInvisible, "removed control characters"},
		{ChangedMarkup, "defused text posing as a host's tags or a conversation's turns"}, {ChangedCut, "cut it to " + strconv.Itoa(MaxChars) + " characters"},
	} {
		if c&p.bit != 0 {
			done = append(done, p.said)
		}
	}
	if len(done) < 2 {
		return strings.Join(done, "")
	}
	return strings.Join(done[:len(done)-1], ", ") + " and " + done[len(done)-1]
}

// TextChanges is Text, saying what it changed (a caller that warns names
// what was done, not "secrets" for a dropped control character).
func TextChanges(s string) (string, Changes) {
	var ch Changes
	step := func(in, out string, bit Changes) string {
		if out != in {
			ch |= bit
		}
		return out
	}
	out := step(s, dropInvisible(s), ChangedInvisible)
	out = step(out, private(out, scanLimit), ChangedPrivate)
	out = step(out, shorten.Runes(out, scanLimit), ChangedCut)
	out = step(out, Secrets(out), ChangedSecret)
	out = step(out, Neutralize(out), ChangedMarkup)
	for range 4 {
		cut := step(out, shorten.Runes(out, MaxChars), ChangedCut)
		if cut == out {
			return out, ch
		}
		if out = step(cut, Neutralize(step(cut, Secrets(cut), ChangedSecret)), ChangedMarkup); out == cut {
			return out, ch
		}
	}
	return step(out, shorten.Runes(out, MaxChars), ChangedCut), ch
}

const scanLimit = 8 * MaxChars

const (
	// maxTag is the longest private tag recognised, attributes included
	// (`<private reason="customer data, see the DPA of 2024 ...">`): a
	// bound keeps the scan linear. Issue 26: 64 ignored a tag whose reason
	// ran to a sentence, and kept the region.
	maxTag = 1024
)

// Private removes every private region, tags included. A tag is
// `<private>` or `</private>` in any case, with spaces allowed inside
// (`< private >`, `</private >`) and attributes on the opening tag
// (`<private reason="pii">`): a writer who meant a region gets one. Regions
// nest: the text is hidden until the closing tag that balances the first
// opening one. An opening tag that is never closed hides everything after
// it. A stray closing tag is dropped.
//
// The scan appends to the output and checks the output's tail at every
// '>', so a tag that only forms once a region between its halves is
// removed (`<priv<private>x</private>ate>`) is caught too: the output never
// contains a complete tag, which is what makes Private idempotent, and it
// stays linear however the tags are interleaved.
func Private(s string) string { return private(s, -1) }

// PrivateFrom is Private for one of a series of texts (the messages of a
// transcript): depth is how deep in private regions the text starts (0,
// or what the previous text returned), and the depth it ends at is
// returned, so a region opened in one message and closed in a later one
// hides everything between.
func PrivateFrom(s string, depth int) (string, int) {
	return privateDepth(s, -1, max(depth, 0))
}

// private is Private that stops once the output holds limit characters
// (no limit when negative): the scan is streaming, so what it has written
// by then is what the whole text would give, but for a tag that a later
// byte might still complete at the very end, which Text's cut discards.
func private(s string, limit int) string {
	out, _ := privateDepth(s, limit, 0)
	return out
}

func privateDepth(s string, limit, depth int) (string, int) {
	if !hasTag(s) {
		if depth > 0 {
			return "", depth
		}
		return s, 0
	}
	out := make([]byte, 0, min(len(s), 4*limit+64))
	if limit < 0 {
		out = make([]byte, 0, len(s))
	}
	runes, lastLT := 0, -1
	for i := 0; i < len(s); {
		if limit >= 0 && runes >= limit+maxTag {
			break
		}
		if depth > 0 {
			n, kind := regionStep(s[i:])
			depth += kind
			i += n
			continue
		}
		if s[i] == '<' {
			lastLT = len(out)
		}
		out = append(out, s[i])
		if s[i]&0xC0 != 0x80 { // not a UTF-8 continuation byte
			runes++
		}
		i++
		var kind, dropped int
		out, lastLT, kind, dropped = dropTailTag(out, lastLT)
		runes -= dropped
		if kind == 1 {
			depth = 1
		}
	}
	return string(out), depth
}

// regionStep is one step through a private region's text: the length of a
// private tag s starts with and its kind (1 opening, -1 closing), else one
// byte of hidden text.
func regionStep(s string) (n, kind int) {
	if s[0] != '<' {
		return 1, 0
	}
	end := tagEnd(s)
	if end == 0 {
		return 1, 0
	}
	if kind = tagKind(s[:end]); kind == 0 {
		return 1, 0
	}
	return end, kind
}

// dropTailTag removes a private tag that the output's last byte completed.
// A tag ending there starts at the output's last '<' (a tag holds no
// other), within maxTag bytes. It returns the output, the position of its
// new last '<' (-1 when none), the kind of tag removed (0 when none) and
// how many characters went.
func dropTailTag(out []byte, lastLT int) ([]byte, int, int, int) {
	if out[len(out)-1] != '>' || lastLT < 0 || len(out)-lastLT > maxTag {
		return out, lastLT, 0, 0
	}
	kind := tagKind(string(out[lastLT:]))
	if kind == 0 {
		return out, lastLT, 0, 0
	}
	dropped := utf8.RuneCount(out[lastLT:])
	out = out[:lastLT]
	from := max(0, len(out)-maxTag)
	if lastLT = bytes.LastIndexByte(out[from:], '<'); lastLT >= 0 {
		lastLT += from
	}
	return out, lastLT, kind, dropped
}

// tagEnd returns the length of the tag-like run s starts with, `<` to the
// first '>' within maxTag bytes with no '<' between (0 when there is none).
func tagEnd(s string) int {
	j := strings.IndexAny(s[1:min(len(s), maxTag)], "<>")
	if j < 0 || s[1+j] != '>' {
		return 0
	}
	return j + 2
}

// tagKind tells a private tag t (from '<' to '>') apart: 1 opening, -1
// closing, 0 not a private tag.
func tagKind(t string) int {
	in := strings.Trim(t[1:len(t)-1], " \t\r\n")
	closing := strings.HasPrefix(in, "/")
	if closing {
		in = strings.TrimLeft(in[1:], " \t\r\n")
	}
	const name = "private"
	if len(in) < len(name) || !strings.EqualFold(in[:len(name)], name) {
		return 0
	}
	switch rest := in[len(name):]; {
	case rest == "" && closing:
		return -1
	case rest == "":
		return 1
	case !closing && strings.IndexByte(" \t\r\n", rest[0]) >= 0:
		return 1
	}
	return 0
}

// hasTag reports whether s holds a private tag, without allocating: it
// jumps from '<' to '<' (a vectorised byte search) and reads at most to the
// next '<' or '>', so it is linear.
func hasTag(s string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return false
		}
		i += j
		if end := tagEnd(s[i:]); end > 0 && tagKind(s[i:i+end]) != 0 {
			return true
		}
	}
}
