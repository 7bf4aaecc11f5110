package lock

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func stagingFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.lock.tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A batch's locks in one directory are one staged inode; to everyone else
// they are ordinary locks, held until each is released.
func TestBatchLocksShareOneInode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, other := t.TempDir(), t.TempDir()
	l := New(Options{Agent: "restorer"})
	b := l.Batch()
	var locks []*Lock
	for _, target := range []string{
		filepath.Join(dir, "issue-1.json"), filepath.Join(dir, "issue-2.json"),
		filepath.Join(dir, "issue-3.json"), filepath.Join(other, "issue-1.json"),
	} {
		lk, err := b.Acquire(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		locks = append(locks, lk)
	}
	if n := len(stagingFiles(t, dir)); n != 1 {
		t.Fatalf("%d staged lock files in one directory, want 1", n)
	}
	first, err := os.Stat(locks[0].Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, lk := range locks[1:3] {
		if info, err := os.Stat(lk.Path()); err != nil || !os.SameFile(first, info) {
			t.Errorf("%s is not the batch's inode: %v", lk.Path(), err)
		}
	}
	if info, _ := os.Stat(locks[3].Path()); os.SameFile(first, info) {
		t.Error("a lock in another directory shares the inode (links cannot cross directories safely)")
	}
	b.Close()
	if m := append(stagingFiles(t, dir), stagingFiles(t, other)...); len(m) != 0 {
		t.Errorf("staged files left after Close: %v", m)
	}
	// Still held: another process's locker times out naming the holder.
	_, err = New(Options{Wait: 20 * time.Millisecond}).Acquire(ctx, filepath.Join(dir, "issue-2.json"))
	if !errcode.Is(err, errcode.LockTimeout) {
		t.Fatalf("a batch lock after Close: %v", err)
	}
	for _, lk := range locks {
		if err := lk.Check(); err != nil {
			t.Errorf("check %s: %v", lk.Path(), err)
		}
		if err := lk.Release(); err != nil {
			t.Errorf("release %s: %v", lk.Path(), err)
		}
		if _, err := os.Stat(lk.Path()); !os.IsNotExist(err) {
			t.Errorf("%s still there after release: %v", lk.Path(), err)
		}
	}
	if _, err := b.Acquire(ctx, filepath.Join(dir, "issue-9.json")); err == nil {
		t.Error("a closed batch took a lock")
	}
}

// A batch lock taken over as stale goes alone: the batch's other locks,
// the same inode under other names, stay held.
func TestBatchLockTakenOverAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	fc := clock.NewFake(time.Now())
	b := newTestLocker(fc, 30*time.Second, time.Second).Batch()
	defer b.Close()
	a1, err := b.Acquire(ctx, filepath.Join(dir, "issue-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	a2, err := b.Acquire(ctx, filepath.Join(dir, "issue-2.json"))
	if err != nil {
		t.Fatal(err)
	}
	fc.Advance(31 * time.Second)
	taker := newTestLocker(fc, 30*time.Second, time.Second)
	lk, err := taker.Acquire(ctx, filepath.Join(dir, "issue-1.json"))
	if err != nil {
		t.Fatalf("stale batch lock not taken over: %v", err)
	}
	if err := a1.Check(); err == nil {
		t.Error("the batch still thinks it holds the lock taken over")
	}
	if err := a2.Check(); err != nil {
		t.Errorf("the batch's other lock went with it: %v", err)
	}
	_ = lk.Release()
	if err := a1.Release(); err == nil {
		t.Error("releasing a lock taken over reported success")
	}
	if err := a2.Release(); err != nil {
		t.Error(err)
	}
}

// No lock claims to be older than it is by more than the renewal period:
// a long batch stages a new content; and a staged file removed under the
// batch (swept as a dead writer's) is staged again.
func TestBatchRenewsContentAndRestages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	fc := clock.NewFake(time.Now())
	b := newTestLocker(fc, 30*time.Second, time.Second).Batch()
	defer b.Close()
	l1, err := b.Acquire(ctx, filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	fc.Advance(2 * batchRenewAfter)
	l2, err := b.Acquire(ctx, filepath.Join(dir, "b.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, at1, _ := ParseContent(l1.content)
	c2, at2, _ := ParseContent(l2.content)
	if !at2.After(at1) {
		t.Errorf("second lock stamped %v, first %v: content not renewed", at2, at1)
	}
	if m := stagingFiles(t, dir); len(m) != 1 {
		t.Errorf("staged files after a renewal: %v", m)
	}
	for _, f := range stagingFiles(t, dir) {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	l3, err := b.Acquire(ctx, filepath.Join(dir, "c.json"))
	if err != nil {
		t.Fatalf("after the staged file went: %v", err)
	}
	if c3, _, ok := ParseContent(l3.content); !ok || c3.Nonce != c2.Nonce {
		t.Errorf("restaged content %+v, want the batch's %+v", c3, c2)
	}
	for _, lk := range []*Lock{l1, l2, l3} {
		if err := lk.Release(); err != nil {
			t.Error(err)
		}
	}
}
