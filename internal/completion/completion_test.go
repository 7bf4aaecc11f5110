package completion

import (
	"reflect"
	"strings"
	"testing"
)

func TestMatching(t *testing.T) {
	for _, tc := range []struct {
		in     []string
		prefix string
		want   []string
	}{
		{[]string{"12", "3", "1"}, "", []string{"1", "12", "3"}},
		{[]string{"12", "3", "1"}, "1", []string{"1", "12"}},
		{[]string{"reviewer"}, "x", nil},
	} {
		if got := Matching(tc.in, tc.prefix); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Matching(%v, %q) = %v, want %v", tc.in, tc.prefix, got, tc.want)
		}
	}
}

// TestScript checks each shell's script names the commands, the
// subcommands and the value lookups.
func TestScript(t *testing.T) {
	tree := Tree{
		Commands: []Command{{"hooks", "git hooks"}, {"clarify", "ask it's"}},
		Subs:     map[string][]string{"hooks": {"install", "status"}},
		IDVerbs:  []string{"answer"},
	}
	for _, shell := range Shells() {
		s := Script(shell, tree)
		for _, want := range []string{"agentx-hook", "install status", CompleteCommand + " agents", "answer"} {
			if shell == "powershell" && want == "install status" {
				want = "'install', 'status'"
			}
			if !strings.Contains(s, want) {
				t.Errorf("%s script lacks %q:\n%s", shell, want, s)
			}
		}
	}
	if Script("tcsh", tree) != "" {
		t.Error("a script for tcsh, want none")
	}
}
