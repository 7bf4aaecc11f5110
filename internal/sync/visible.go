package sync

import "strings"

// visibleLine is one source line of a comment as GitHub renders it: text
// is the line with HTML comments removed, prose is whether the line is
// ordinary text a reader sees as such (not inside a code block, not code by
// indentation, not wholly hidden).
type visibleLine struct {
	text  string
	prose bool
	// quoted: the line is part of a block quote, by its own '>' or as a
	// lazy continuation (a plain line right after a quoted one, with no
	// blank line between, continues the quote's paragraph: GitHub renders
	// it inside the quote).
	quoted bool
}

// visibleLines splits a Markdown body into lines the way a reader sees
// them (CommonMark, the part that decides what is visible): fenced code
// (``` or ~~~, closed only by a fence of the same character at least as
// long, so a ~~~ inside a ``` block does not close it; an unclosed fence
// runs to the end), indented code (four spaces or a tab), and HTML
// comments, inline or spanning lines (an unclosed one hides the rest, as
// GitHub's sanitiser drops it). Code lines keep their text, since a command's
// text may quote code, but are never prose.
func visibleLines(body string) []visibleLine {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	var out []visibleLine
	var fence string // the opening fence while inside a fenced block
	inComment, inQuote := false, false
	for _, line := range strings.Split(body, "\n") {
		if strings.TrimSpace(line) == "" {
			inQuote = false
		}
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			out = append(out, visibleLine{text: line})
			continue
		}
		if !inComment {
			if f := openingFence(line); f != "" {
				fence = f
				out = append(out, visibleLine{text: line})
				continue
			}
			if indentWidth(line) >= 4 {
				out = append(out, visibleLine{text: line})
				continue
			}
		}
		var text string
		text, inComment = stripComments(line, inComment)
		if strings.HasPrefix(strings.TrimSpace(text), ">") {
			inQuote = true
		}
		out = append(out, visibleLine{text: text, prose: true, quoted: inQuote})
	}
	return out
}

// stripComments removes HTML comments from line; open says a comment
// started on an earlier line and is still open, and the result says
// whether one is open at the end of this line.
func stripComments(line string, open bool) (string, bool) {
	var b strings.Builder
	for {
		if open {
			j := strings.Index(line, "-->")
			if j < 0 {
				return b.String(), true
			}
			line, open = line[j+3:], false
			continue
		}
		i := strings.Index(line, "<!--")
		if i < 0 {
			b.WriteString(line)
			return b.String(), false
		}
		b.WriteString(line[:i])
		line, open = line[i+4:], true
	}
}

// indentWidth is the column of the first non-blank character (a tab
// advances to the next multiple of four), or 0 for a blank line.
func indentWidth(line string) int {
	w := 0
	for _, c := range line {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w
		}
	}
	return 0
}

// openingFence returns the fence (e.g. "```" or "~~~~") that line opens,
// or "". A backtick fence's info string may not contain a backtick.
func openingFence(line string) string {
	if indentWidth(line) > 3 {
		return ""
	}
	t := strings.TrimLeft(line, " \t")
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n < 3 {
			continue
		}
		if c == '`' && strings.Contains(t[n:], "`") {
			return ""
		}
		return t[:n]
	}
	return ""
}

// closesFence reports whether line closes the block opened by fence: the
// same character, at least as many, nothing after but blanks.
func closesFence(line, fence string) bool {
	if indentWidth(line) > 3 {
		return false
	}
	t := strings.TrimLeft(line, " \t")
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}

// isReply reports whether body is one of ingest's own replies: they end
// with the reply marker. A marker anywhere else (quoted, pasted, or written
// by a person to hide a command) does not make a comment a reply.
func isReply(body string) bool {
	body = strings.TrimSpace(body)
	i := strings.LastIndex(body, replyMarker)
	if i < 0 {
		return false
	}
	rest := body[i+len(replyMarker):]
	j := strings.Index(rest, markerClose)
	return j >= 0 && j+len(markerClose) == len(rest) && !strings.Contains(rest[:j], "\n")
}
