package lock

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/process"
)

func newTestLocker(c clock.Clock, stale, wait time.Duration) *Locker {
	l := New(Options{StaleAfter: stale, Wait: wait, Agent: "tester", Clock: c})
	return l
}

func TestAcquireRelease(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "issue-1.json")
	l := New(Options{Agent: "engineer"})
	lk, err := l.Acquire(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(target + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("lock content is not JSON: %v", err)
	}
	// Both dialects: TypeScript reads timestamp, PowerShell reads created.
	for _, k := range []string{"pid", "timestamp", "created", "agent"} {
		if _, ok := c[k]; !ok {
			t.Errorf("lock content lacks %q: %s", k, data)
		}
	}
	if c["agent"] != "engineer" || int(c["pid"].(float64)) != os.Getpid() {
		t.Errorf("lock content = %s", data)
	}
	if err := lk.Check(); err != nil {
		t.Errorf("Check on a held lock: %v", err)
	}
	if err := lk.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock file still present after release: %v", err)
	}
	if err := lk.Release(); err != nil {
		t.Errorf("second release: %v", err)
	}
}

func TestGoroutinesSerialise(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "counter")
	l := New(Options{})
	var wg sync.WaitGroup
	inside := 0
	maxInside := 0
	var mu sync.Mutex
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				err := l.With(context.Background(), target, func(*Lock) error {
					mu.Lock()
					inside++
					if inside > maxInside {
						maxInside = inside
					}
					mu.Unlock()
					time.Sleep(100 * time.Microsecond)
					mu.Lock()
					inside--
					mu.Unlock()
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if maxInside != 1 {
		t.Fatalf("%d goroutines held the lock at once", maxInside)
	}
}

func writeLock(t *testing.T, path string, content string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if !mtime.IsZero() {
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStaleLocks(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 17, 0, 0, 0, time.UTC)
	old := clock.Format(now.Add(-31 * time.Second))
	fresh := clock.Format(now.Add(-5 * time.Second))
	tests := []struct {
		name      string
		content   string
		mtime     time.Time
		wantTaken bool
	}{
		{"typescript lock older than 30s", `{"pid":999999,"timestamp":"` + old + `","agent":"engineer"}`, time.Time{}, true},
		{"powershell lock (created only) older than 30s", `{"pid":999999,"created":"` + old + `","agent":"engineer"}`, time.Time{}, true},
		{"powershell 7-digit fraction", `{"pid":999999,"created":"` + strings.TrimSuffix(old, "Z") + `1234Z","agent":"x"}`, time.Time{}, true},
		{"fresh lock from another host", `{"pid":999999,"timestamp":"` + fresh + `","agent":"engineer","host":"elsewhere"}`, time.Time{}, false},
		{"fresh lock without host (old tools)", `{"pid":999999,"timestamp":"` + fresh + `","agent":"engineer"}`, time.Time{}, false},
		{"empty lock, old mtime", ``, now.Add(-time.Minute), true},
		{"empty lock, fresh mtime", ``, now.Add(-time.Second), false},
		{"junk lock, old mtime", `{"pid":`, now.Add(-time.Minute), true},
		{"junk lock, fresh mtime", `garbage`, now.Add(-time.Second), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "issue-1.json")
			mt := tt.mtime
			if mt.IsZero() {
				mt = now
			}
			writeLock(t, target+".lock", tt.content, mt)
			l := newTestLocker(clock.NewFake(now), 30*time.Second, 50*time.Millisecond)
			lk, err := l.Acquire(context.Background(), target)
			if tt.wantTaken {
				if err != nil {
					t.Fatalf("expected takeover, got %v", err)
				}
				_ = lk.Release()
				return
			}
			if !errcode.Is(err, errcode.LockTimeout) {
				t.Fatalf("expected LOCK_TIMEOUT, got %v", err)
			}
			data, _ := os.ReadFile(target + ".lock")
			if string(data) != tt.content {
				t.Errorf("a live lock was modified: %q", data)
			}
		})
	}
}

func TestDeadPIDOnThisHostIsTakenAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "issue-1.json")
	host, _ := os.Hostname()
	now := time.Now()
	// pid 2^22+ is above Linux's default pid_max: no such process.
	content, _ := json.Marshal(Content{PID: 4194303, Timestamp: clock.Format(now), Created: clock.Format(now), Agent: "crashed", Host: host})
	writeLock(t, target+".lock", string(content), time.Time{})
	l := New(Options{Wait: 200 * time.Millisecond})
	lk, err := l.Acquire(context.Background(), target)
	if err != nil {
		t.Fatalf("dead holder not taken over: %v", err)
	}
	_ = lk.Release()
}

func TestTimeoutNamesHolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "issue-7.json")
	now := time.Now()
	content, _ := json.Marshal(Content{PID: 4242, Timestamp: clock.Format(now.Add(-3 * time.Second)), Agent: "architect", Host: "other-host"})
	writeLock(t, target+".lock", string(content), time.Time{})
	l := New(Options{Wait: 30 * time.Millisecond})
	_, err := l.Acquire(context.Background(), target)
	if !errcode.Is(err, errcode.LockTimeout) {
		t.Fatalf("got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"issue-7.json.lock", "architect", "pid 4242", "3."} {
		if !strings.Contains(msg, want) {
			t.Errorf("timeout message %q lacks %q", msg, want)
		}
	}
}

func TestReleaseDoesNotRemoveAnotherHoldersLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "issue-1.json")
	fc := clock.NewFake(time.Now())
	a := newTestLocker(fc, 30*time.Second, time.Second)
	lkA, err := a.Acquire(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	// A is paused past the threshold; B takes over.
	fc.Advance(31 * time.Second)
	b := newTestLocker(fc, 30*time.Second, time.Second)
	b.pid = a.pid + 1 // another process
	lkB, err := b.Acquire(context.Background(), target)
	if err != nil {
		t.Fatalf("takeover: %v", err)
	}
	if err := lkA.Check(); !errors.Is(err, ErrLost) {
		t.Fatalf("A.Check after takeover = %v, want ErrLost", err)
	}
	if err := lkA.Release(); !errors.Is(err, ErrLost) {
		t.Fatalf("A.Release = %v, want ErrLost", err)
	}
	if err := lkB.Check(); err != nil {
		t.Fatalf("B lost its lock to A's release: %v", err)
	}
	if err := lkB.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestContextCancel(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "x")
	l := New(Options{Wait: 5 * time.Second})
	lk, err := l.Acquire(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Release()
	other := New(Options{Wait: time.Minute})
	other.pid = l.pid + 1
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = other.Acquire(ctx, target)
	if !errcode.Is(err, errcode.LockTimeout) {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatal("cancel did not stop the wait")
	}
}

// A free lock is taken even when the caller's deadline passed before
// Acquire got to it (a goroutine descheduled that long on a loaded
// machine): the lock file's first attempt never looks at the deadline, and
// the in-process turn must not either. Taking the turn raced the expired
// deadline in one select, so a free lock was refused about every other
// time, and spool.Claim's 100 ms wait turned that into a capture left
// spooled with no word (issue 37).
func TestFreeLockTakenPastTheDeadline(t *testing.T) {
	target := filepath.Join(t.TempDir(), "x")
	l := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 64 {
		lk, err := l.Acquire(ctx, target)
		if err != nil {
			t.Fatalf("attempt %d: a free lock refused past the deadline: %v", i, err)
		}
		if err := lk.Release(); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzParseContent(f *testing.F) {
	f.Add([]byte(`{"pid":123,"timestamp":"2026-03-01T17:04:15.123Z","agent":"engineer"}`))
	f.Add([]byte(`{"pid":123,"created":"2026-03-01T17:04:15.1234567Z"}`))
	f.Add([]byte(``))
	f.Add([]byte(`{"pid":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, at, ok := ParseContent(data)
		if ok && at.IsZero() && c.Timestamp == "" && c.Created == "" {
			t.Fatalf("ok without a timestamp: %q", data)
		}
	})
}

func BenchmarkAcquireRelease(b *testing.B) {
	target := filepath.Join(b.TempDir(), "issue-1.json")
	l := New(Options{})
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		lk, err := l.Acquire(ctx, target)
		if err != nil {
			b.Fatal(err)
		}
		if err := lk.Release(); err != nil {
			b.Fatal(err)
		}
	}
}

// Staging temporaries a SIGKILLed writer left (`.X.lock.tmp-*`) are removed
// by the next acquisition in their directory once older than the stale
// threshold, whichever lock they staged; a fresh one (a live writer's, for
// microseconds) is kept. The directory is swept once per process.
func TestStaleStagingRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "issue-1.json")
	old := filepath.Join(dir, ".issue-1.json.lock.tmp-123")
	fresh := filepath.Join(dir, ".issue-1.json.lock.tmp-456")
	other := filepath.Join(dir, ".issue-2.json.lock.tmp-789")
	for _, p := range []string{old, fresh, other} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Hour)
	for _, p := range []string{old, other} {
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	l := New(Options{StaleAfter: time.Minute, Wait: time.Second, Agent: "tester"})
	lk, err := l.Acquire(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lk.Release() }()
	for _, p := range []string{old, other} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale staging file %s kept: %v", filepath.Base(p), err)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("%s removed: %v", filepath.Base(fresh), err)
	}
	// Swept already: a later acquisition in the directory reads it no more.
	if err := os.WriteFile(other, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(other, past, past); err != nil {
		t.Fatal(err)
	}
	lk2, err := l.Acquire(context.Background(), filepath.Join(dir, "issue-2.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lk2.Release() }()
	if _, err := os.Stat(other); err != nil {
		t.Errorf("the directory was swept twice in one process: %v", err)
	}
}

// A holder on this host that exited without releasing and was not reaped
// yet (a zombie: its parent, or an init that reaps late, has not collected
// it) is dead: its lock is taken at once, not after the stale threshold.
func TestUnreapedHolderIsTakenAtOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("zombies are recognised through /proc")
	}
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "issue-1.json")
	holder := exec.Command("true")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Wait() }() // reaped only after the acquire
	host, _ := os.Hostname()
	now := time.Now()
	content, _ := json.Marshal(Content{PID: holder.Process.Pid, Timestamp: clock.Format(now), Created: clock.Format(now), Agent: "exited", Host: host})
	writeLock(t, target+".lock", string(content), time.Time{})
	// Wait until it has exited, without reaping it: a zombie, which
	// process.Alive's own test tells from /proc.
	for deadline := time.Now().Add(10 * time.Second); process.Alive(holder.Process.Pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the exited holder still counts as alive")
		}
	}
	// A live holder's lock would stay for the whole minute of staleness
	// and the acquire would time out after 5 s.
	l := New(Options{StaleAfter: time.Minute, Wait: 5 * time.Second})
	lk, err := l.Acquire(context.Background(), target)
	if err != nil {
		t.Fatalf("the exited holder's lock was not taken over: %v", err)
	}
	if !lk.TookOver() {
		t.Error("acquired without a takeover")
	}
	_ = lk.Release()
}
