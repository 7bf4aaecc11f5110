package hookcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
)

// A process blocked outside context-aware code (here: reading a stdin pipe
// whose writer never closes it) must still end on SIGTERM: after the grace
// on the first signal, at once on the second. Before, the context took the
// signal and the process hung until killed.
func TestSignalEndsBlockedProcess(t *testing.T) {
	t.Parallel()
	// The first case shortens the process's grace (the test waits it out);
	// the second lengthens it to a minute, which the second signal must
	// cut. The bounds leave a loaded machine seconds of room and are still
	// far from what a process ignoring the signal would take.
	const shortGrace, longGrace = 200 * time.Millisecond, time.Minute
	for _, tt := range []struct {
		name    string
		signals int
		grace   time.Duration
		within  time.Duration
	}{
		{"first signal after the grace", 1, shortGrace, shortGrace + 15*time.Second},
		{"second signal at once", 2, longGrace, 20 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if _, e, code := runApp(t, root, nil, "", "init"); code != 0 {
				t.Fatalf("init: %s", e)
			}
			cmd := exec.Command("agentx-hook", "--root", root, "memory", "add", "--file", "-")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", testSignalGraceEnv, tt.grace.Milliseconds()), testSignalReadyEnv+"=1")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdin, err := cmd.StdinPipe() // held open: the hook blocks reading it
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = stdin.Close() }()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal only once the handlers are in place: a signal before
			// kills the process by default, which this test cannot tell
			// apart. Whether the read it blocks in has begun does not
			// matter: the handler cancels, the read stays blocked.
			// The test binary's lines on stderr: handlers installed, then
			// the first signal taken.
			events := make(chan string, 4)
			drained := make(chan struct{})
			go func() {
				lines := bufio.NewScanner(stderr)
				for lines.Scan() {
					if l := lines.Text(); l == signalsReadyLine || l == signalTakenLine {
						events <- l
					}
				}
				_, _ = io.Copy(io.Discard, stderr)
				close(drained)
			}()
			await := func(line string) {
				t.Helper()
				select {
				case got := <-events:
					if got != line {
						t.Fatalf("stderr said %q before %q", got, line)
					}
				case <-drained:
					t.Fatalf("the process ended before saying %q", line)
				}
			}
			await(signalsReadyLine)
			done := make(chan error, 1)
			go func() { <-drained; done <- cmd.Wait() }()
			start := time.Now()
			for i := 0; i < tt.signals; i++ {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				if i == 0 && tt.signals > 1 {
					// A second SIGTERM sent before the first was taken is
					// one signal to the kernel and to Go's runtime alike:
					// on a loaded machine the process saw one and waited
					// out its minute. The second goes once the first
					// cancelled the command.
					await(signalTakenLine)
				}
			}
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
					t.Fatalf("exit = %v, want status %d", err, 128+int(syscall.SIGTERM))
				}
				d := time.Since(start)
				if d > tt.within {
					t.Fatalf("took %v to exit, want under %v", d, tt.within)
				}
				if tt.signals == 1 && d < tt.grace {
					t.Fatalf("exited after %v, before the grace of %v", d, tt.grace)
				}
			case <-time.After(tt.within + 5*time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("process ignored SIGTERM")
			}
		})
	}
}

// Ctrl-C (SIGINT) while a responder runs: the whole responder group is
// killed and the target's status restored, and the record stays pending
// for the next check: an operator's interrupt is not the responder
// failing, and escalating it to a person changed protocol state (issue 26
// item 8; before that, the escalation failed on the cancelled context and
// the status was lost).
func TestSignalDuringResponder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if out, err := exec.Command("agentx-hook", "--root", root, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	cfg := filepath.Join(root, ".agentx", "agentx.toml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("\n[responders.architect]\ncommand = [\"sh\", \"-c\", \"sleep 60 & wait\"]\ntimeout = \"60s\"\n")
	_ = f.Close()
	cmd := exec.Command("agentx-hook", "--root", root, "clarify", "request", "--issue", "8", "--from", "engineer",
		"--to", "architect", "--topic", "t", "--question", "q")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := filepath.Join(root, ".agentx", "state", "agent-status.json")
	waitForFile(t, cmd, status, "the responder never started", func(data []byte) bool {
		return strings.Contains(string(data), `"clarifying"`)
	})
	_ = cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(signalGrace + 5*time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("clarify request ignored SIGINT")
	}
	if !strings.Contains(stdout.String(), "CLR-8-001") {
		t.Errorf("stdout = %q, want the id", stdout.String())
	}
	data, _ := os.ReadFile(filepath.Join(root, ".agentx", "state", "clarifications", "issue-8.json"))
	if strings.Contains(string(data), `"escalated"`) || !strings.Contains(string(data), `"pending"`) {
		t.Errorf("the interrupt changed the record:\n%s", data)
	}
	if st, _ := os.ReadFile(status); strings.Contains(string(st), `"clarifying"`) {
		t.Errorf("status not restored:\n%s", st)
	}
}

// `monitor` arms its signal handler on demand: not at the start (a check
// with nothing to act on ends before it would), before the first lock
// (so a locked write is never cut by a signal), or after armSignalsAfter.
// Every other command but the quick ones arms it at once.
func TestSignalsArmedOnDemand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args     []string
		onDemand bool
	}{
		{[]string{"monitor"}, true},
		{[]string{"--root", "x", "monitor", "--json"}, true},
		{[]string{"--root=x", "monitor"}, true},
		{[]string{"memory", "search", "token refresh"}, true},
		{[]string{"--root", "x", "memory", "search", "q", "--json"}, true},
		{[]string{"memory", "stats"}, false},
		{[]string{"memory"}, false},
		{[]string{"clarify", "list"}, false},
		{[]string{"--root", "monitor", "clarify", "list"}, false},
	} {
		readied := make(chan struct{}, 1)
		ctx, stop, arm := signalsFor(tt.args, time.Minute, func(context.Context) { readied <- struct{}{} })
		if got := arm != nil; got != tt.onDemand {
			t.Fatalf("%q: armed on demand = %v, want %v", tt.args, got, tt.onDemand)
		}
		if !tt.onDemand {
			select {
			case <-readied:
			default:
				t.Fatalf("%q: the handler is not in place at the start", tt.args)
			}
			stop()
			continue
		}
		// Not armed yet: no ready. Then the Locker arms it.
		select {
		case <-readied:
			t.Fatalf("%q: armed at the start", tt.args)
		default:
		}
		a := &App{Getenv: func(string) string { return "" }, Clock: clock.Real{}, armSignals: arm}
		lk, err := a.Locks().Acquire(ctx, filepath.Join(t.TempDir(), "target"))
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-readied:
		default:
			t.Fatalf("%q: a lock was taken before the handler was armed", tt.args)
		}
		_ = lk.Release()
		arm() // a second arm does nothing
		select {
		case <-readied:
			t.Fatalf("%q: armed twice", tt.args)
		default:
		}
		stop()
		if ctx.Err() == nil {
			t.Fatalf("%q: stop left the context running", tt.args)
		}
	}
	// The timer arms a command that runs long without a lock.
	readied := make(chan struct{}, 1)
	_, stop, _ := signalsFor([]string{"monitor"}, time.Minute, func(context.Context) { readied <- struct{}{} })
	defer stop()
	<-readied
}

// `memory search` arms its handler on demand, and before any atomic
// write's temporary exists (the derived records a search leaves): a
// signal then cannot leave a temporary behind. Not parallel: the hook
// is the process's.
func TestMemorySearchArmsBeforeAWrite(t *testing.T) {
	readied := make(chan struct{}, 1)
	_, stop, arm := signalsFor([]string{"memory", "search", "q"}, time.Minute, func(context.Context) { readied <- struct{}{} })
	defer stop()
	if arm == nil {
		t.Fatal("memory search arms its handler at the start")
	}
	restore := armBeforeWrites(arm)
	defer restore()
	select {
	case <-readied:
		t.Fatal("armed before any write")
	default:
	}
	if _, after := armsOnDemand([]string{"memory", "search", "q"}); after != 0 {
		t.Fatalf("memory search arms its handler after %v without a write; want never", after)
	}
	dir := t.TempDir()
	if err := atomicfile.Write(filepath.Join(dir, "search.fresh"), []byte("x"), atomicfile.Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-readied:
	default:
		t.Fatal("a write ran before the handler was armed")
	}
	restore()
	armBeforeWrites(nil)() // none: nothing to undo
}

// waitForFile waits until the file at path holds what ready looks for,
// written by cmd or a process it started; past 20 s (a process that never
// gets there) it kills cmd and fails with why.
func waitForFile(t *testing.T, cmd *exec.Cmd, path, why string, ready func([]byte) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if data, err := os.ReadFile(path); err == nil && ready(data) {
			return
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal(why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
