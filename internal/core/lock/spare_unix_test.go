//go:build unix

package lock

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t).Ino
}

// A released lock's file becomes the directory's spare, and the next lock
// taken there is that file with the new holder's content in full (a
// longer old content cut): one file made per directory, not per lock.
func TestReleasedLockFileIsReused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	spare := filepath.Join(dir, spareName)
	first := New(Options{Agent: "a-rather-long-agent-name-that-makes-the-content-longer", Wait: time.Second})
	lk, err := first.Acquire(ctx, filepath.Join(dir, "issue-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	ino := inode(t, PathFor(filepath.Join(dir, "issue-1.json")))
	if err := lk.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(PathFor(filepath.Join(dir, "issue-1.json"))); !os.IsNotExist(err) {
		t.Fatalf("released lock still there: %v", err)
	}
	if got := inode(t, spare); got != ino {
		t.Fatalf("spare inode %d, the lock's was %d", got, ino)
	}
	second := New(Options{Agent: "b", Wait: time.Second})
	target := filepath.Join(dir, "issue-2.json")
	lk2, err := second.Acquire(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lk2.Release() }()
	if got := inode(t, PathFor(target)); got != ino {
		t.Fatalf("new lock inode %d, the spare's was %d", got, ino)
	}
	if _, err := os.Lstat(spare); !os.IsNotExist(err) {
		t.Fatalf("spare still there once claimed: %v", err)
	}
	data, err := os.ReadFile(PathFor(target))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, lk2.content) {
		t.Fatalf("lock holds %q, want its holder's %q", data, lk2.content)
	}
	c, _, ok := ParseContent(data)
	if !ok || c.Agent != "b" {
		t.Fatalf("lock content %q", data)
	}
	if info, _ := os.Lstat(PathFor(target)); info.Mode().Perm() != 0o644 {
		t.Fatalf("lock mode %v", info.Mode())
	}
	if left := stagingFiles(t, dir); len(left) != 0 {
		t.Fatalf("staging left: %v", left)
	}
}

// A spare that is not a plain file of its own is never written through:
// a symlink planted at its name, a FIFO, one still linked elsewhere (a
// batch's shared file) or one released long ago (the staging sweep could
// take it for a dead writer's) is dropped and a new file made.
func TestSpareNotUsableIsNotWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, kind := range []string{"symlink", "fifo", "linked", "old", "mode"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			spare := filepath.Join(dir, spareName)
			outside := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(outside, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			switch kind {
			case "symlink":
				err = os.Symlink(outside, spare)
			case "fifo":
				err = syscall.Mkfifo(spare, 0o644)
			case "linked":
				err = os.Link(outside, spare)
			case "old", "mode":
				perm := os.FileMode(0o644)
				if kind == "mode" {
					perm = 0o600
				}
				if err = os.WriteFile(spare, []byte("old"), perm); err == nil {
					past := time.Now().Add(-time.Hour)
					if kind == "old" {
						err = os.Chtimes(spare, past, past)
					}
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			l := New(Options{Agent: "x", Wait: time.Second, StaleAfter: 30 * time.Second})
			target := filepath.Join(dir, "issue-1.json")
			lk, err := l.Acquire(ctx, target)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = lk.Release() }()
			if data, _ := os.ReadFile(outside); string(data) != "mine" {
				t.Fatalf("written through the spare: %q", data)
			}
			data, err := os.ReadFile(PathFor(target))
			if err != nil || !bytes.Equal(data, lk.content) {
				t.Fatalf("lock %q, %v", data, err)
			}
		})
	}
}

// A batch's locks share one file: releasing one while others are held
// removes its name and keeps nothing as a spare, so no later lock can
// rewrite the file the others still are.
func TestBatchLockIsNeverTheSpare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	l := New(Options{Agent: "restorer", Wait: time.Second})
	b := l.Batch()
	var locks []*Lock
	for _, name := range []string{"issue-1.json", "issue-2.json"} {
		lk, err := b.Acquire(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		locks = append(locks, lk)
	}
	b.Close()
	if err := locks[0].Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, spareName)); !os.IsNotExist(err) {
		t.Fatalf("a shared lock file became the spare: %v", err)
	}
	other := New(Options{Agent: "other", Wait: time.Second})
	lk, err := other.Acquire(ctx, filepath.Join(dir, "issue-3.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lk.Release() }()
	data, err := os.ReadFile(PathFor(filepath.Join(dir, "issue-2.json")))
	if err != nil || !bytes.Equal(data, locks[1].content) {
		t.Fatalf("the batch's other lock holds %q, %v", data, err)
	}
	if err := locks[1].Release(); err != nil {
		t.Fatal(err)
	}
}
