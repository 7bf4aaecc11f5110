//go:build unix

package hookcmd

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// Ctrl-C is how `agentx-hook view` stops (its help says so): the signal
// cancels the command's context, and the companion (agentx-view,
// agentx-mcp) must get an interrupt it can end on cleanly, and the command
// then exit 0 as the companion does. It was killed at once instead and the
// command failed with IO_ERROR "signal: killed" and a hint about disk
// space (issue 37).
func TestCompanionEndsOnInterruptNotKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-view")
	script := "#!/bin/sh\ntrap 'echo interrupted; exit 0' INT\necho ready\nwhile :; do sleep 0.05; done\n"
	if err := testenv.WriteExecutable(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	a := &App{Stdin: strings.NewReader(""), Stdout: pw, Stderr: io.Discard, Cwd: dir}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		err := runCompanion(ctx, a, fake, nil)
		_ = pw.Close()
		done <- err
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("the companion did not start: %q", lines.Text())
	}
	cancel() // what the first Ctrl-C does to the command's context
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	if err := <-done; err != nil {
		t.Errorf("the command failed after the companion ended on the interrupt: %v", err)
	}
	if !strings.Contains(strings.Join(rest, "\n"), "interrupted") {
		t.Errorf("the companion was not interrupted (killed instead?); it printed %q", rest)
	}
}
