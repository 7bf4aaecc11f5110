package cursor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// With CURSOR_WORKER set, the test binary is a hook process that moves one
// session's cursor through a range of offsets.
func TestMain(m *testing.M) {
	if os.Getenv("CURSOR_WORKER") != "" {
		c := New(os.Getenv("CURSOR_DIR"), lock.New(lock.Options{}), nil)
		from, _ := strconv.Atoi(os.Getenv("CURSOR_FROM"))
		for off := from; off < from+20; off++ {
			if err := c.Set(context.Background(), "sess", "/t.jsonl", int64(off*10)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
		os.Exit(0)
	}
	os.Exit(testenv.Main(m))
}

func TestGetSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := New(t.TempDir(), lock.New(lock.Options{}), nil)
	if got := c.Get("s1", "/a.jsonl"); got != 0 {
		t.Fatalf("new session at %d", got)
	}
	if err := c.Set(ctx, "s1", "/a.jsonl", 4096); err != nil {
		t.Fatal(err)
	}
	if got := c.Get("s1", "/a.jsonl"); got != 4096 {
		t.Fatalf("Get = %d", got)
	}
	_ = c.Set(ctx, "s1", "/a.jsonl", 100) // a late hook of an earlier turn
	if got := c.Get("s1", "/a.jsonl"); got != 4096 {
		t.Fatalf("cursor moved back to %d", got)
	}
	if got := c.Get("s1", "/b.jsonl"); got != 0 {
		t.Fatalf("another transcript starts at %d", got)
	}
	if err := c.Set(ctx, "s1", "/b.jsonl", 10); err != nil || c.Get("s1", "/b.jsonl") != 10 {
		t.Fatalf("new transcript: %v", err)
	}
	if got := c.Get("../../etc", "/x"); got != 0 {
		t.Fatal("odd session id")
	}
	if err := c.Set(ctx, "", "/x", 5); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptCursorReadsFromStart(t *testing.T) {
	t.Parallel()
	c := New(t.TempDir(), lock.New(lock.Options{}), nil)
	if err := os.WriteFile(c.path("s"), []byte("{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := c.Get("s", "/t"); got != 0 {
		t.Fatalf("Get = %d", got)
	}
	if err := c.Set(context.Background(), "s", "/t", 7); err != nil || c.Get("s", "/t") != 7 {
		t.Fatalf("Set over a corrupt cursor: %v", err)
	}
}

func TestPrune(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(time.Now())
	c := New(t.TempDir(), lock.New(lock.Options{}), fake)
	_ = c.Set(context.Background(), "old", "/t", 1)
	fake.Advance(TTL + time.Hour)
	if err := c.Prune(); err != nil {
		t.Fatal(err)
	}
	if c.Get("old", "/t") != 0 {
		t.Fatal("old cursor kept")
	}
	if err := New(filepath.Join(t.TempDir(), "none"), nil, nil).Prune(); err != nil {
		t.Fatal(err)
	}
}

// TestProcessesNeverMoveBack: hook processes of one session racing (Stop
// and SessionEnd, or overlapping turns) leave the furthest offset.
func TestProcessesNeverMoveBack(t *testing.T) {
	dir := t.TempDir()
	var envs [][]string
	for _, from := range []int{0, 10, 20, 5} {
		envs = append(envs, []string{"CURSOR_WORKER=1", "CURSOR_DIR=" + dir, "CURSOR_FROM=" + strconv.Itoa(from)})
	}
	testenv.RunSelf(t, "^$", envs...)
	if got := New(dir, lock.New(lock.Options{}), nil).Get("sess", "/t.jsonl"); got != 390 {
		t.Fatalf("cursor at %d, want 390", got)
	}
}
