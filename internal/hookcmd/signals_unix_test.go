//go:build unix

package hookcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// `monitor` arms its handler on demand, and still a Ctrl-C while the
// responder it re-invoked for a stale record runs kills the responder's
// group and lets the check wind down, as a clarify command's does
// (TestSignalDuringResponder): without the handler the process would die
// at once and leave the responder running.
func TestSignalDuringMonitorResponder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if out, err := exec.Command("agentx-hook", "--root", root, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	// A request to an agent with no responder stays pending.
	req := exec.Command("agentx-hook", "--root", root, "clarify", "request", "--issue", "8", "--from", "engineer",
		"--to", "architect", "--non-blocking", "--topic", "t", "--question", "q")
	req.Env = append(os.Environ(), "AGENTX_NOW=2030-01-01T09:00:00Z")
	if out, err := req.CombinedOutput(); err != nil {
		t.Fatalf("request: %v\n%s", err, out)
	}
	// Then the architect gets a responder that says it started and waits
	// a minute.
	started := filepath.Join(root, "started")
	f, err := os.OpenFile(filepath.Join(root, ".agentx", "agentx.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fmt.Fprintf(f, "\n[responders.architect]\ncommand = [\"sh\", \"-c\", \"echo $$ > %s.tmp && mv %s.tmp %s; sleep 60 & wait\"]\ntimeout = \"60s\"\n", started, started, started)
	_ = f.Close()
	cmd := exec.Command("agentx-hook", "--root", root, "monitor")
	cmd.Env = append(os.Environ(), "AGENTX_NOW=2030-01-01T12:00:00Z") // past the SLA: stale, responder re-invoked
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var pid int
	waitForFile(t, cmd, started, "the monitor never re-invoked the responder", func(data []byte) bool {
		_, err := fmt.Sscan(string(data), &pid)
		return err == nil
	})
	_ = cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(signalGrace + 5*time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("monitor ignored SIGINT")
	}
	// The responder's shell was killed with its group before the monitor
	// ended (it is not our child: once gone, kill -0 fails).
	if err := syscall.Kill(pid, 0); err == nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatal("the responder outlived the interrupted monitor")
	}
}
