package hookcmd

import (
	"regexp"
	"strings"
	"testing"
)

// The top-level help lists every command exactly once, under the
// headings of helpGroups in their order, none under "More" (issue 37).
func TestTopLevelHelpIsGrouped(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	(&App{}).usage(&b)
	help := b.String()
	var titles []string
	for _, g := range helpGroups() {
		titles = append(titles, g.title+" commands:")
	}
	at := -1
	for _, title := range titles {
		i := strings.Index(help, "\n"+title+"\n")
		if i <= at {
			t.Errorf("%q missing or out of order:\n%s", title, help)
		}
		at = i
	}
	if strings.Contains(help, "More commands:") {
		t.Errorf("a command is in no group of helpgroups.go:\n%s", help)
	}
	for _, c := range commands() {
		if n := len(regexp.MustCompile(`(?m)^  `+regexp.QuoteMeta(c.name)+` `).FindAllString(help, -1)); n != 1 {
			t.Errorf("%s is listed %d times:\n%s", c.name, n, help)
		}
	}
}
