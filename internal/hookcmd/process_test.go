package hookcmd

// Concurrency and crash tests with real OS processes. testscript.Main (in
// script_test.go) puts this test binary on $PATH as `agentx-hook`, and as
// the two helpers below, so every writer here is a separate process.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/ledger/ledgertest"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// testHelpers are extra programs for TestMain.
func testHelpers() map[string]func() {
	return map[string]func(){
		"agentx-testholder": holderMain,
		"agentx-testwriter": writerMain,
		"agentx-testlitter": litterMain,
		"agentx-hook-union": unionHookMain,
		"wait-gone":         waitGoneMain,
	}
}

// waitGoneMain: wait-gone PATH. It waits up to a minute for PATH to be
// removed (a background process's marker) and fails if it never is.
func waitGoneMain() {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Lstat(os.Args[1]); os.IsNotExist(err) {
			os.Exit(0)
		}
	}
	fmt.Fprintf(os.Stderr, "%s still there after a minute\n", os.Args[1])
	os.Exit(1)
}

// holderMain: agentx-testholder ROOT ISSUE HOLD TOPIC. It takes the
// ledger lock, says "locked", holds it for HOLD milliseconds, or until a
// line on its standard input when HOLD is "stdin" (only on its first
// attempt), then appends one record. When its write is refused because the
// lock was taken over, it says so and retries on the fresh ledger.
func holderMain() {
	root, issueS, holdS, topic := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	issue, _ := strconv.Atoi(issueS)
	hold, _ := strconv.Atoi(holdS)
	stale := lock.DefaultStaleAfter
	if ms, err := strconv.Atoi(os.Getenv("AGENTX_LOCK_STALE_MS")); err == nil {
		stale = time.Duration(ms) * time.Millisecond
	}
	ws := workspace.Workspace{Root: root}
	locks := lock.New(lock.Options{StaleAfter: stale, Wait: 10 * time.Second, Agent: "holder-" + topic})
	path := ws.LedgerFile(issue)
	for attempt := 0; attempt < 5; attempt++ {
		lk, err := locks.Acquire(context.Background(), path)
		if err != nil {
			fmt.Println("acquire-failed", err)
			os.Exit(1)
		}
		fmt.Println("locked", attempt)
		l, err := ledger.LoadFile(path, issue)
		if err != nil {
			fmt.Println("load-failed", err)
			os.Exit(1)
		}
		if attempt == 0 {
			if holdS == "stdin" {
				_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
			} else {
				time.Sleep(time.Duration(hold) * time.Millisecond)
			}
		}
		l.Clarifications = append(l.Clarifications, ledger.Record{ID: l.NextID(), IssueNumber: issue, From: "engineer",
			To: "architect", Topic: topic, Status: ledger.Pending, Round: 1, MaxRounds: 5})
		data, _ := jsonfile.Marshal(l)
		err = atomicfile.Write(path, data, atomicfile.Options{Commit: lk.Commit})
		if errors.Is(err, lock.ErrLost) {
			fmt.Println("write-refused")
			fmt.Println("release", lk.Release())
			continue
		}
		if err != nil {
			fmt.Println("write-failed", err)
			os.Exit(1)
		}
		fmt.Println("release", lk.Release())
		fmt.Println("done")
		return
	}
	os.Exit(1)
}

// writerMain: agentx-testwriter ROOT ISSUE appends records until killed.
// It says "ready" before its first write and "committed" after each, so a
// test can time its kill from what the writer did rather than from a guess
// at how long a process takes to start on a loaded machine.
func writerMain() {
	root, issueS := os.Args[1], os.Args[2]
	issue, _ := strconv.Atoi(issueS)
	ws := workspace.Workspace{Root: root}
	stale := lock.DefaultStaleAfter
	if ms, err := strconv.Atoi(os.Getenv("AGENTX_LOCK_STALE_MS")); err == nil {
		stale = time.Duration(ms) * time.Millisecond
	}
	s := &ledger.Store{WS: ws, Locks: lock.New(lock.Options{Wait: 10 * time.Second, StaleAfter: stale})}
	fmt.Println("ready")
	for {
		_, err := s.Update(context.Background(), issue, func(l *ledger.Ledger) error {
			// A body of a few KB makes each write take long enough to be
			// cut at interesting moments.
			l.Clarifications = append(l.Clarifications, ledger.Record{ID: l.NextID(), IssueNumber: issue, From: "engineer",
				To: "architect", Topic: "crash", Status: ledger.Pending, Round: 1, MaxRounds: 5,
				Thread: []ledger.Entry{{Round: 1, From: "engineer", Type: ledger.Question, Body: strings.Repeat("q", 3000)}}})
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("committed")
	}
}

// initWorkspace is a new directory as `agentx-hook --root DIR init` makes
// it: a copy of the one that command made once for the test binary.
func initWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	initWorkspaceFixture.copyTo(t, root)
	return root
}

var initWorkspaceFixture = &fixture{name: "init", build: func(dir string) error {
	cmd := exec.Command("agentx-hook", "--root", dir, "init")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("agentx-hook init: %v\n%s", err, out)
	}
	return nil
}}

func run(t *testing.T, root string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

type proc struct {
	cmd   *exec.Cmd
	lines chan string
}

func startProc(t *testing.T, env []string, name string, args ...string) *proc {
	t.Helper()
	return startCmd(t, exec.Command(name, args...), env)
}

// startProcStdin is startProc with a pipe to the process's standard input.
func startProcStdin(t *testing.T, env []string, name string, args ...string) (*proc, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(name, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	return startCmd(t, cmd, env), in
}

func startCmd(t *testing.T, cmd *exec.Cmd, env []string) *proc {
	t.Helper()
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

// expect waits for a line starting with prefix (bounded: a hung helper
// fails the test instead of hanging it).
func (p *proc) expect(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(testenv.HangGuard)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("process ended before %q", prefix)
			}
			if strings.HasPrefix(line, prefix) {
				return line
			}
		case <-timeout:
			t.Fatalf("no %q within 30s", prefix)
		}
	}
}

func TestSIGKILLedHolderIsTakenOver(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	ws := workspace.Workspace{Root: root}
	run(t, root, nil, "agentx-hook", "--root", root, "clarify", "request", "--issue", "5", "--from", "engineer", "--to", "architect", "--topic", "first", "--question", "q?")

	// A holder on this host dies: its pid is gone, so the lock is taken at once.
	h := startProc(t, nil, "agentx-testholder", root, "5", "600000", "killed")
	h.expect(t, "locked")
	_ = h.cmd.Process.Kill()
	_ = h.cmd.Wait()
	if _, err := os.Stat(ws.LedgerFile(5) + ".lock"); err != nil {
		t.Fatalf("the killed holder's lock should remain: %v", err)
	}
	start := time.Now()
	run(t, root, []string{"AGENTX_LOCK_WAIT_MS=60000"}, "agentx-hook", "--root", root, "clarify", "request", "--issue", "5", "--from", "engineer", "--to", "architect", "--topic", "second", "--question", "q?")
	// A wait for the live holder would sit out the 60 s; 20 s leaves a
	// loaded machine its room.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("takeover of a dead pid's lock took %s", d)
	}
	ledgertest.CheckIDs(t, root, 5, 2)

	// A lock from a holder on another machine (same shared directory) is
	// only taken after the threshold.
	h = startProc(t, nil, "agentx-testholder", root, "5", "600000", "remote")
	h.expect(t, "locked")
	_ = h.cmd.Process.Kill()
	_ = h.cmd.Wait()
	lockPath := ws.LedgerFile(5) + ".lock"
	data, _ := os.ReadFile(lockPath)
	c, _, _ := lock.ParseContent(data)
	c.Host = "another-machine"
	c.Timestamp = clock.Format(time.Now())
	c.Created = c.Timestamp
	forged, _ := jsonMarshal(c)
	if err := os.WriteFile(lockPath, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	run(t, root, []string{"AGENTX_LOCK_STALE_MS=700", "AGENTX_LOCK_WAIT_MS=5000"}, "agentx-hook", "--root", root, "clarify", "request", "--issue", "5", "--from", "engineer", "--to", "architect", "--topic", "third", "--question", "q?")
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Errorf("a live remote lock was taken after %s, before the 700ms threshold", d)
	}
	ledgertest.CheckIDs(t, root, 5, 3)
}

func TestWritersKilledAtRandomLeaveValidLedgers(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	ws := workspace.Workspace{Root: root}
	path := ws.LedgerFile(8)
	rng := rand.New(rand.NewPCG(1, 2))
	prev := 0
	for i := 0; i < 25; i++ {
		// A kill between creating the lock and writing its content leaves
		// an empty lock that only ages out: a short threshold keeps the
		// loop quick.
		w := startProc(t, []string{"AGENTX_LOCK_STALE_MS=300"}, "agentx-testwriter", root, "8")
		// Every other writer is killed only after it committed once, so
		// the run always has records to lose; the rest may die anywhere,
		// including before their first write. The random delay counts from
		// what the writer reported, not from its start.
		if i%2 == 1 {
			w.expect(t, "committed")
		} else {
			w.expect(t, "ready")
		}
		time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		_ = w.cmd.Process.Kill()
		_ = w.cmd.Wait()
		l, err := ledger.LoadFile(path, 8)
		if err != nil {
			t.Fatalf("iteration %d: ledger unreadable after a kill: %v", i, err)
		}
		if n := len(l.Clarifications); n < prev {
			t.Fatalf("iteration %d: records went from %d to %d", i, prev, n)
		} else {
			prev = n
		}
		ledgertest.CheckIDs(t, root, 8, prev)
	}
	if prev == 0 {
		t.Fatal("no writer ever committed a record")
	}
	// The next writer after a crash cleans the dead writers' temporaries.
	run(t, root, []string{"AGENTX_LOCK_STALE_MS=300"}, "agentx-hook", "--root", root, "clarify", "request", "--issue", "8", "--from", "engineer", "--to", "architect", "--topic", "after", "--question", "q?")
	if temps, _ := filepath.Glob(filepath.Join(ws.ClarificationsDir(), ".issue-8.json.tmp-*")); len(temps) > 0 && prev > 0 {
		t.Logf("temporaries left after the last crash: %d (cleaned by the next takeover)", len(temps))
	}
	ledgertest.CheckIDs(t, root, 8, prev+1)
}

func jsonMarshal(v any) ([]byte, error) { return jsonfile.Marshal(v) }
