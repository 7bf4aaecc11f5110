package hookcmd

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/demo"
)

// internalWords are names a newcomer cannot know: the project's own
// specification and history, the reference implementation. Help texts and
// the demo's headings say what they mean instead (issue 37).
var internalWords = []string{"SPEC's", "the SPEC ", "old CLI", "the reference fields", "seed 0", "§"}

func TestHelpAndDemoNameNoInternals(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	subs := completionTree().Subs
	check := func(where, text string) {
		t.Helper()
		for _, w := range internalWords {
			if strings.Contains(text, w) {
				t.Errorf("%s says %q, a name only the project knows:\n%s", where, w, text)
			}
		}
	}
	for _, c := range commands() {
		paths := [][]string{{c.name}}
		for _, s := range subs[c.name] {
			paths = append(paths, []string{c.name, s})
		}
		for _, p := range paths {
			out, _, _ := runApp(t, root, nil, "", append(p, "--help")...)
			check(strings.Join(p, " ")+" --help", out)
		}
	}
	for _, sec := range demo.Sections() {
		for _, st := range sec {
			check("the demo's heading", st.Title)
		}
	}
}
