package hookcmd

import (
	"strings"
	"testing"
)

// Every command's and subcommand's --help ends with examples (issue 37),
// each a command line of agentx-hook (or of the shell around it).
func TestEveryHelpHasExamples(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	subs := completionTree().Subs
	for _, c := range commands() {
		paths := [][]string{{c.name}}
		for _, s := range subs[c.name] {
			paths = append(paths, []string{c.name, s})
		}
		for _, p := range paths {
			if c.name == "git-hook" && len(p) > 1 {
				continue // what git runs; one help for the command
			}
			out, _, _ := runApp(t, root, nil, "", append(p, "--help")...)
			i := strings.Index(out, "\nExamples:\n  ")
			if i < 0 {
				t.Errorf("%s --help has no examples:\n%s", strings.Join(p, " "), out)
				continue
			}
			if !strings.Contains(out[i:], "agentx-hook ") {
				t.Errorf("%s --help's examples run no agentx-hook:\n%s", strings.Join(p, " "), out[i:])
			}
		}
	}
}
