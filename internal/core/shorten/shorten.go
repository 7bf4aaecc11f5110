// Package shorten owns how a text is cut down to fit: a summary, a quote in
// a reply or a prompt, a field with a size limit. Lengths count characters
// (runes), never bytes, and a cut never falls inside a UTF-8 sequence.
package shorten

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Marker ends a text that was cut, as the reference implementation marks
// its summaries.
const Marker = "..."

// Runes cuts s to at most n characters with no marker. Invalid bytes count
// as one character each and are kept as they are.
func Runes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n { // fewer bytes than n: certainly fewer runes
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// Text cuts s to at most limit characters, the last three of them Marker
// when anything was cut. Below room for the marker it cuts bare.
func Text(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	if limit <= len(Marker) {
		return Runes(s, limit)
	}
	return Runes(s, limit-len(Marker)) + Marker
}

// Ellipsis cuts s to at most limit characters, the last of them "…" when
// anything was cut: a quote inside a sentence (a reply on an issue), where
// one character is all the mark of a cut may cost. Below two characters it
// cuts bare.
func Ellipsis(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	if limit <= 1 {
		return Runes(s, limit)
	}
	return Runes(s, limit-1) + "…"
}

// Hash shows a content hash in a message: "sha256:" and its first 12
// hexadecimal digits, then "…" (enough to tell two apart by eye).
func Hash(h string) string {
	if len(h) > hashShown {
		return h[:hashShown] + "…"
	}
	return h
}

const hashShown = len("sha256:") + 12

// Flatten puts s on one line: every run of white space, newlines included,
// becomes one space, and the ends are trimmed.
func Flatten(s string) string { return strings.Join(strings.Fields(s), " ") }

// Line is Text of Flatten(s): a text quoted inside one line of output.
func Line(s string, limit int) string { return Text(Flatten(s), limit) }

// Bytes is a byte count as a person reads it: 512 B, 1.5 KB, 2.0 MB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
