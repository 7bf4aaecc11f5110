package digest

import (
	"html"
	"testing"
)

// TestEscapeHTMLIsTheHTMLPackages holds escapeHTML to html.EscapeString
// (agentx-hook stopped linking package html: its initialiser ran at every
// start).
func TestEscapeHTMLIsTheHTMLPackages(t *testing.T) {
	for _, s := range []string{"", "plain", `<b>"x" & 'y'</b>`, "a&amp;b", "émoji 🎉 <>", "&&&''\"\"<<>>"} {
		if got, want := escapeHTML(s), html.EscapeString(s); got != want {
			t.Errorf("escapeHTML(%q) = %q, want %q", s, got, want)
		}
	}
}
