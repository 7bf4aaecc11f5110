package hookcmd

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// The check a clarify command runs after its write looks at what it wrote
// (Scanner.Changed), not at every ledger; one that wrote nothing runs the
// full check.
func TestSideEffectMonitorFollowsTheWrite(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run := func(args ...string) *App {
		t.Helper()
		var out, errOut bytes.Buffer
		a := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Cwd: root,
			Getenv: func(string) string { return "" }, Clock: clock.Real{}}
		if code := a.Run(context.Background(), append([]string{"--root", root}, args...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return a
	}
	run("init")
	for _, issue := range []string{"3", "4"} {
		run("clarify", "request", "--issue", issue, "--from", "engineer", "--to", "architect", "--non-blocking",
			"--topic", "t", "--question", "q?")
	}
	a := run("clarify", "request", "--issue", "7", "--from", "engineer", "--to", "architect", "--non-blocking",
		"--topic", "t", "--question", "q?")
	rt, err := a.Router()
	if err != nil {
		t.Fatal(err)
	}
	if got := sideEffectMonitor(rt).Scanner.Changed; !slices.Equal(got, []string{"issue-7.json"}) {
		t.Fatalf("after writing issue 7 the check looks at %q", got)
	}
	reader := run("clarify", "inbox", "--human")
	rt, err = reader.Router()
	if err != nil {
		t.Fatal(err)
	}
	if got := sideEffectMonitor(rt).Scanner.Changed; got != nil {
		t.Fatalf("a command that wrote nothing scoped its check to %q", got)
	}
}
