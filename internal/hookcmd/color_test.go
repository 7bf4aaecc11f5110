package hookcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// Colour only on a terminal, never with NO_COLOR or TERM=dumb, and never
// in --json output, whatever the terminal (DESIGN section 3).
func TestColourOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run := func(tty bool, env map[string]string, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		a := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Cwd: root,
			Getenv: func(k string) string { return env[k] },
			Clock:  clock.NewFake(time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)), StdoutTTY: tty, StderrTTY: tty}
		if code := a.Run(context.Background(), append([]string{"--root", root}, args...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	run(false, nil, "init")
	run(false, nil, "clarify", "request", "--issue", "4", "--from", "engineer", "--to", "architect", "--topic", "t", "--question", "q")
	for _, tc := range []struct {
		name  string
		tty   bool
		env   map[string]string
		args  []string
		color bool
	}{
		{"terminal", true, map[string]string{"TERM": "xterm"}, []string{"clarify"}, true},
		{"pipe", false, map[string]string{"TERM": "xterm"}, []string{"clarify"}, false},
		{"NO_COLOR", true, map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, []string{"clarify"}, false},
		{"TERM=dumb", true, map[string]string{"TERM": "dumb"}, []string{"clarify"}, false},
		{"json on a terminal", true, map[string]string{"TERM": "xterm"}, []string{"clarify", "--json"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Contains(run(tc.tty, tc.env, tc.args...), "\x1b[")
			if got != tc.color {
				t.Errorf("escape codes: %v, want %v", got, tc.color)
			}
		})
	}
}
