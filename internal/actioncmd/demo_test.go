package actioncmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// TestDemo runs the newcomer's tour end to end: it must succeed and say
// what happened to the resolved issue, not just stop after alice's comment.
func TestDemo(t *testing.T) {
	var out, errOut bytes.Buffer
	a := &App{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }, Clock: clock.Real{}}
	if code := a.Run(context.Background(), []string{"demo"}); code != 0 {
		t.Fatalf("demo exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{
		"-- issue #42   labels: clarification-blocked",
		"== sync again, nothing changed -> 0 API calls",
		"ledger in the repository: CLR-7-001 is resolved by alice",
		"so no bot comment repeats it",
		"Demo complete.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Errorf("demo output holds escape codes")
	}
}

// Usage mistakes exit 2 with the error on stderr's first line.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"demo", "extra"}, {"bogus"}} {
		var out, errOut bytes.Buffer
		a := &App{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }, Clock: clock.Real{}}
		if code := a.Run(context.Background(), args); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if first, _, _ := strings.Cut(errOut.String(), "\n"); !strings.HasPrefix(first, "error: usage: ") {
			t.Errorf("%v: first stderr line %q", args, first)
		}
	}
}
