package atomicfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

func TestWriteReplacesAndCleansUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "state.json")
	for _, content := range []string{"first\n", "second, longer content\n", "3\n"} {
		if err := Write(path, []byte(content), Options{}); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if string(got) != content {
			t.Fatalf("got %q want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestCommitRefusal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("lock lost")
	err := Write(path, []byte("new"), Options{Commit: func(func() error) error { return refused }})
	if !errors.Is(err, refused) {
		t.Fatalf("got %v", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Fatalf("refused write replaced the file: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary file left behind: %v", entries)
	}
}

// A read-modify-write whose lock is taken over runs again on the fresh
// file; one that keeps losing it ends in LOCK_TIMEOUT, not a silent drop.
func TestWithLockRetriesALostLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	runs := 0
	err := WithLock(context.Background(), lock.New(lock.Options{}), path, func(*lock.Lock) error {
		runs++
		if runs == 2 {
			return nil
		}
		return lock.ErrLost
	})
	if err != nil || runs != 2 {
		t.Fatalf("runs=%d err=%v", runs, err)
	}
	runs = 0
	err = WithLock(context.Background(), lock.New(lock.Options{}), path, func(*lock.Lock) error {
		runs++
		return lock.ErrLost
	})
	if !errcode.Is(err, errcode.LockTimeout) || runs != lostRetries+1 {
		t.Fatalf("runs=%d err=%v", runs, err)
	}
}

// Staged contents appear only when committed; a discarded one leaves no
// temporary behind.
func TestStageCommitDiscard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "sub", "b.json")
	if err := os.WriteFile(a, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	sa, err := Stage(a, []byte("new"), 0)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Stage(b, []byte("b"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(a); string(data) != "old" {
		t.Fatal("staged content visible before commit")
	}
	if err := SyncStaged([]*Staged{sa, sb}); err != nil {
		t.Fatal(err)
	}
	if err := sa.Commit(nil); err != nil {
		t.Fatal(err)
	}
	SyncDirs([]*Staged{sa})
	sb.Discard()
	if data, _ := os.ReadFile(a); string(data) != "new" {
		t.Fatalf("a = %q", data)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Fatal("discarded content in place")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*", ".*.tmp-*")); len(m) != 0 {
		t.Fatalf("temporaries left: %v", m)
	}
}
