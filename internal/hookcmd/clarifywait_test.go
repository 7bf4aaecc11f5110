package hookcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// lockedBuffer is a bytes.Buffer a running command writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A blocking question to a person says, while it waits, that it still
// waits; an interrupt ends the wait and leaves the question open (issue
// 34). The progress comes every waitProgress: the test waits for the
// lines, not for a time.
func TestPersonWaitProgressAndInterrupt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	app := func(stdout, stderr *lockedBuffer) *App {
		return &App{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr, Cwd: root,
			Getenv: func(string) string { return "" }, Clock: clock.Real{}, waitPoll: 5 * time.Millisecond, waitProgress: 20 * time.Millisecond}
	}
	var out, errOut lockedBuffer
	if code := app(&out, &errOut).Run(context.Background(), []string{"--root", root, "init"}); code != 0 {
		t.Fatalf("init: %s", errOut.String())
	}
	cfg := filepath.Join(root, ".agentx", "agentx.toml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, "\n[people]\nlead = \"@octo-lead\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errOut = lockedBuffer{}, lockedBuffer{}
	done := make(chan int)
	go func() {
		done <- app(&out, &errOut).Run(ctx, []string{"--root", root, "clarify", "request", "--issue", "5", "--from", "engineer",
			"--to", "lead", "--topic", "t", "--question", "q?"})
	}()
	// Seen while the command runs: progress is not held to its end.
	deadline := time.Now().Add(time.Minute)
	for strings.Count(errOut.String(), "still waiting for human:lead") < 2 {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no progress within a minute:\n%s", errOut.String())
		}
		select {
		case code := <-done:
			t.Fatalf("the request returned (exit %d) before it was interrupted:\n%s", code, errOut.String())
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	code := <-done
	if code == 0 || !strings.Contains(errOut.String(), "CLR-5-001: stopped waiting after") || !strings.Contains(out.String(), "CLR-5-001\n") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errOut.String())
	}
	l, err := os.ReadFile(filepath.Join(root, ".agentx", "state", "clarifications", "issue-5.json"))
	if err != nil || !strings.Contains(string(l), `"status": "pending"`) {
		t.Fatalf("the question is not open: %v\n%s", err, l)
	}
}
