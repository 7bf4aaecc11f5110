package spool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// The test binary doubles as the worker process of the concurrency tests:
// with SPOOL_WORKER set it drains the spool and exits.
func TestMain(m *testing.M) {
	switch os.Getenv("SPOOL_WORKER") {
	case "drain":
		os.Exit(drain(os.Getenv("SPOOL_DIR"), os.Getenv("SPOOL_LOG")))
	case "crash":
		// Claim one entry and die without Done or Release, as a hook killed
		// by its host's deadline does.
		s := New(os.Getenv("SPOOL_DIR"), lock.New(lock.Options{}), Options{})
		if _, err := s.Claim(context.Background(), os.Getenv("SPOOL_KEY")); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(testenv.Main(m))
}

// drain processes every pending entry it can claim, appending one line per
// processed entry to the shared log (O_APPEND writes of one line are
// atomic), the way `hook start` works off what `hook finish` left.
func drain(dir, logPath string) int {
	s := New(dir, lock.New(lock.Options{}), Options{NoSync: true})
	log, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return 2
	}
	defer log.Close()
	ctx := context.Background()
	entries, err := s.Pending()
	if err != nil {
		return 2
	}
	for _, e := range entries {
		c, err := s.Claim(ctx, e.Key)
		if errors.Is(err, ErrNotPending) {
			continue
		}
		if err != nil {
			return 2
		}
		fmt.Fprintf(log, "%s %d %s\n", c.Key(), os.Getpid(), c.Payload())
		if err := c.Done(); err != nil {
			return 2
		}
	}
	return 0
}

func newSpool(t *testing.T) *Spool {
	t.Helper()
	return New(filepath.Join(t.TempDir(), "spool"), lock.New(lock.Options{}), Options{NoSync: true})
}

func TestPutClaimDone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSpool(t)
	if es, err := s.Pending(); err != nil || len(es) != 0 {
		t.Fatalf("empty spool: %v %v", es, err)
	}
	key := Key("session-1", "4096", `{"type":"assistant"}`)
	added, err := s.Put(ctx, key, []byte(`{"session_id":"session-1"}`))
	if err != nil || !added {
		t.Fatalf("Put = %v, %v", added, err)
	}
	if added, _ := s.Put(ctx, key, []byte("other")); added {
		t.Fatal("a pending key was queued twice")
	}
	es, _ := s.Pending()
	if len(es) != 1 || es[0].Key != key {
		t.Fatalf("Pending = %+v", es)
	}
	c, err := s.Claim(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Payload()) != `{"session_id":"session-1"}` {
		t.Fatalf("payload %q", c.Payload())
	}
	if err := c.Done(); err != nil {
		t.Fatal(err)
	}
	if es, _ := s.Pending(); len(es) != 0 {
		t.Fatalf("still pending after Done: %+v", es)
	}
	// The same turn fired again (SessionEnd after Stop): not queued.
	if added, _ := s.Put(ctx, key, []byte("again")); added {
		t.Fatal("a done key was queued again")
	}
	if _, err := s.Claim(ctx, key); !errors.Is(err, ErrNotPending) {
		t.Fatalf("Claim after Done: %v", err)
	}
}

func TestReleaseKeepsPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSpool(t)
	_, _ = s.Put(ctx, "k1", []byte("p"))
	c, err := s.Claim(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	// Held: a second claimant (same process, another goroutine) gives up.
	if _, err := s.Claim(ctx, "k1"); !errors.Is(err, ErrNotPending) {
		t.Fatalf("second claim: %v", err)
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	c2, err := s.Claim(ctx, "k1")
	if err != nil {
		t.Fatalf("claim after release: %v", err)
	}
	_ = c2.Done()
}

func TestDoneAfterPutRaceIsDropped(t *testing.T) {
	t.Parallel()
	// A payload re-put after its marker was written (the race between a
	// late Put and Done) is dropped by the next Claim, not reprocessed.
	ctx := context.Background()
	s := newSpool(t)
	_, _ = s.Put(ctx, "k", []byte("p"))
	c, _ := s.Claim(ctx, "k")
	_ = c.Done()
	if err := os.WriteFile(s.pendingPath("k"), []byte("p"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, "k"); !errors.Is(err, ErrNotPending) {
		t.Fatalf("claim: %v", err)
	}
	if es, _ := s.Pending(); len(es) != 0 {
		t.Fatalf("pending: %+v", es)
	}
}

func TestKeysAndValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSpool(t)
	for _, bad := range []string{"", "../x", "a/b", "a.b", strings.Repeat("k", 129)} {
		if _, err := s.Put(ctx, bad, nil); err == nil {
			t.Errorf("Put(%q) accepted", bad)
		}
	}
	if Key("a", "bc") == Key("ab", "c") {
		t.Fatal("Key is ambiguous across part boundaries")
	}
	if k := Key("s", "1"); len(k) != 32 || validKey(k) != nil {
		t.Fatalf("Key = %q", k)
	}
}

func TestPendingPrunesOldDoneMarkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := clock.NewFake(time.Now())
	s := New(filepath.Join(t.TempDir(), "spool"), lock.New(lock.Options{}), Options{Clock: fake, NoSync: true})
	_, _ = s.Put(ctx, "old", []byte("x"))
	c, _ := s.Claim(ctx, "old")
	_ = c.Done()
	fake.Advance(DoneTTL + time.Hour)
	if _, err := s.Pending(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.donePath("old")); !os.IsNotExist(err) {
		t.Fatalf("old marker kept: %v", err)
	}
}

func worker(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"SPOOL_WORKER=" + mode}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestProcessesProcessEachEntryOnce starts several real processes draining
// one spool at once; every entry must be processed by exactly one of them.
func TestProcessesProcessEachEntryOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSpool(t)
	const entries, workers = 40, 4
	for i := range entries {
		if _, err := s.Put(ctx, fmt.Sprintf("e%02d", i), []byte(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(t.TempDir(), "processed.log")
	var cmds []*exec.Cmd
	for range workers {
		cmd := worker(t, "drain", "SPOOL_DIR="+s.Dir(), "SPOOL_LOG="+logPath)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("worker: %v", err)
		}
	}
	// Workers that found an entry held skip it; one more pass (the next
	// `hook start`) picks up anything all of them skipped.
	if code := drain(s.Dir(), logPath); code != 0 {
		t.Fatalf("final drain: %d", code)
	}
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]int{}
	pids := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		seen[fields[0]]++
		pids[fields[1]] = true
	}
	if len(seen) != entries {
		t.Fatalf("processed %d distinct entries, want %d", len(seen), entries)
	}
	var dup []string
	for k, n := range seen {
		if n != 1 {
			dup = append(dup, fmt.Sprintf("%s x%d", k, n))
		}
	}
	sort.Strings(dup)
	if len(dup) > 0 {
		t.Fatalf("processed more than once: %v", dup)
	}
	if es, _ := s.Pending(); len(es) != 0 {
		t.Fatalf("left pending: %d", len(es))
	}
	t.Logf("%d entries by %d processes", entries, len(pids))
}

// TestCrashedClaimIsRecovered: a process that claims an entry and dies
// leaves its lock behind; the next process sees the holder is dead and
// processes the entry.
func TestCrashedClaimIsRecovered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSpool(t)
	_, _ = s.Put(ctx, "turn1", []byte("payload"))
	cmd := worker(t, "crash", "SPOOL_DIR="+s.Dir(), "SPOOL_KEY=turn1")
	if err := cmd.Run(); err != nil {
		t.Fatalf("crash worker: %v", err)
	}
	if _, err := os.Stat(lock.PathFor(s.pendingPath("turn1"))); err != nil {
		t.Fatalf("the crashed claim left no lock: %v", err)
	}
	c, err := s.Claim(ctx, "turn1")
	if err != nil {
		t.Fatalf("claim after crash: %v", err)
	}
	if string(c.Payload()) != "payload" {
		t.Fatal("payload lost")
	}
	if err := c.Done(); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkPut(b *testing.B) {
	// The durable part of `hook finish`: one fsynced atomic file.
	s := New(filepath.Join(b.TempDir(), "spool"), lock.New(lock.Options{}), Options{})
	payload := []byte(`{"session_id":"abc","transcript_path":"/tmp/t.jsonl","hook_event_name":"SessionEnd","cwd":"/tmp","reason":"exit"}`)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		if _, err := s.Put(ctx, "k"+strconv.Itoa(i), payload); err != nil {
			b.Fatal(err)
		}
	}
}

// An entry that fails every time is given up after MaxAttempts and moved
// to failed/, out of Pending, instead of being retried for ever.
func TestFailGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	s := newSpool(t)
	ctx := context.Background()
	if _, err := s.Put(ctx, "k1", []byte("payload")); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= MaxAttempts; i++ {
		cl, err := s.Claim(ctx, "k1")
		if err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
		moved, err := cl.Fail()
		if err != nil {
			t.Fatal(err)
		}
		if (moved != "") != (i == MaxAttempts) {
			t.Fatalf("attempt %d: moved = %q", i, moved)
		}
		if moved != "" {
			if data, err := os.ReadFile(moved); err != nil || string(data) != "payload" {
				t.Fatalf("moved entry: %q %v", data, err)
			}
		}
	}
	if p, err := s.Pending(); err != nil || len(p) != 0 {
		t.Fatalf("still pending: %v %v", p, err)
	}
}

// A hook killed in the middle of its work never reaches Fail: the attempt
// is counted when the entry is claimed, so an entry whose work always
// outlives the hook is quarantined after MaxAttempts kills instead of
// being retried by every later hook start for ever.
func TestKilledAttemptsCountAndQuarantine(t *testing.T) {
	t.Parallel()
	s := newSpool(t)
	ctx := context.Background()
	if _, err := s.Put(ctx, "k1", []byte("payload")); err != nil {
		t.Fatal(err)
	}
	for i := range MaxAttempts {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "SPOOL_WORKER=crash", "SPOOL_DIR="+s.Dir(), "SPOOL_KEY=k1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("killed attempt %d: %v %s", i, err, out)
		}
	}
	_, err := s.Claim(ctx, "k1")
	var qe *QuarantinedError
	if !errors.As(err, &qe) || qe.Attempts != MaxAttempts || !errors.Is(err, ErrNotPending) {
		t.Fatalf("claim after %d killed attempts: %v", MaxAttempts, err)
	}
	if data, err := os.ReadFile(qe.Path); err != nil || string(data) != "payload" {
		t.Fatalf("quarantined payload %q %v", data, err)
	}
	if p, _ := s.Pending(); len(p) != 0 {
		t.Fatalf("still pending: %v", p)
	}
}
