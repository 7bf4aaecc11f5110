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

// TestScriptFlags: every shell's script offers each command's flags and a
// flag's fixed values, by command (the same flag may take other values
// elsewhere).
func TestScriptFlags(t *testing.T) {
	tree := Tree{
		Commands: []Command{{"digest", "weekly"}, {"hook", "hooks"}},
		Subs:     map[string][]string{"hook": {"start"}},
		Flags: map[string][]Flag{
			"digest":     {{Name: "--format", Value: true, Values: []string{"md", "json"}}, {Name: "--save"}},
			"hook start": {{Name: "--format", Value: true, Values: []string{"text", "claude"}}, {Name: "--strict", Usage: "fail loudly"}},
		},
	}
	for _, shell := range Shells() {
		s := Script(shell, tree)
		wants := []string{"--save", "md json", "text claude", "strict"}
		if shell == "powershell" {
			wants = []string{"'--save'", "'md', 'json'", "'text', 'claude'", "'--strict'"}
		}
		if shell == "fish" {
			wants = []string{"-l save", "'md json'", "'text claude'", "-l strict -d 'fail loudly'"}
		}
		for _, want := range wants {
			if !strings.Contains(s, want) {
				t.Errorf("%s script lacks %q:\n%s", shell, want, s)
			}
		}
	}
}
