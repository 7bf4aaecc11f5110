package hookcmd

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A process blocked outside context-aware code (here: reading a stdin pipe
// whose writer never closes it) must still end on SIGTERM: after the grace
// on the first signal, at once on the second. Before, the context took the
// signal and the process hung until killed.
func TestSignalEndsBlockedProcess(t *testing.T) {
	for _, tt := range []struct {
		name    string
		signals int
		within  time.Duration
	}{
		{"first signal after the grace", 1, signalGrace + 3*time.Second},
		{"second signal at once", 2, signalGrace - 500*time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			cmd := exec.Command("agentx-hook", "--root", root, "memory", "add", "--file", "-")
			stdin, err := cmd.StdinPipe() // held open: the hook blocks reading it
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = stdin.Close() }()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Let it reach the blocking read (a signal before the handler is
			// installed kills it by default, which this test cannot tell apart).
			time.Sleep(500 * time.Millisecond)
			start := time.Now()
			for i := 0; i < tt.signals; i++ {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				time.Sleep(50 * time.Millisecond)
			}
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
					t.Fatalf("exit = %v, want status %d", err, 128+int(syscall.SIGTERM))
				}
				if d := time.Since(start); d > tt.within {
					t.Fatalf("took %v to exit, want under %v", d, tt.within)
				}
			case <-time.After(tt.within + 5*time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("process ignored SIGTERM")
			}
		})
	}
}
