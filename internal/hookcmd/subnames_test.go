package hookcmd

import (
	"strings"
	"testing"
)

// An unknown or missing subcommand's usage error lists every subcommand
// the group has: `memory` once left `restore` out (issue 37).
func TestSubcommandErrorsNameEverySubcommand(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	for group, subs := range completionTree().Subs {
		if group == "git-hook" || group == "hook" {
			continue // what git and the hosts run: hooks warn and exit 0
		}
		for _, args := range [][]string{{group, "nosuch"}, {group}} {
			_, e, code := runApp(t, root, nil, "", args...)
			if code != 2 && group != "clarify" { // bare clarify lists clarifications
				t.Errorf("%s: exit %d, want 2", strings.Join(args, " "), code)
			}
			if group == "clarify" && len(args) == 1 {
				continue
			}
			for _, s := range subs {
				if !strings.Contains(e, s) {
					t.Errorf("%s does not name the subcommand %s:\n%s", strings.Join(args, " "), s, e)
				}
			}
		}
	}
}
