package hookcmd

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// A rebuild over a large store reports progress on stderr, and only when
// stderr is a terminal (scripts and agents read stderr for errors).
func TestMemoryRebuildProgressOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A git repository: outside one, the checkpoint a rebuild takes first
	// is a warning on stderr.
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	run := func(tty bool, args ...string) (string, string) {
		var out, errb bytes.Buffer
		a := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Cwd: root, rootFlag: root,
			Getenv: func(string) string { return "" }, Clock: clock.Real{}, StderrTTY: tty}
		if code := a.Run(context.Background(), args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String(), errb.String()
	}
	run(false, "init")
	run(false, "memory", "generate", "--observations", "1200", "--issues", "600", "--into-store")
	if _, stderr := run(false, "memory", "rebuild"); stderr != "" {
		t.Fatalf("progress on a non-terminal: %q", stderr)
	}
	out, stderr := run(true, "memory", "rebuild")
	// 1,200 observations land in some 520 of the 600 issues.
	if !regexp.MustCompile(`rebuilding the memory index: (\d+)/(\d+)\n$`).MatchString(stderr) || !strings.Contains(out, "1200 observations from") {
		t.Fatalf("stdout %q stderr %q", out, stderr)
	}
}
