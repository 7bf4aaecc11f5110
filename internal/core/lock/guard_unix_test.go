//go:build unix

package lock

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

func TestTakeoverAdmitsOneHolder(t *testing.T) {
	t.Parallel()
	// Many lockers judge the same stale lock at once; exactly one may win
	// each round, and none may hold it together.
	for round := 0; round < 20; round++ {
		dir := t.TempDir()
		target := filepath.Join(dir, "issue-1.json")
		now := time.Now()
		writeLock(t, target+".lock", `{"pid":1,"timestamp":"`+clock.Format(now.Add(-time.Hour))+`"}`, time.Time{})
		var mu sync.Mutex
		holders, maxHolders := 0, 0
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Separate Lockers share no in-process mutex, so they
				// contend through the lock file as processes do.
				l := New(Options{Wait: 2 * time.Second})
				lk, err := l.Acquire(context.Background(), target)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				holders++
				if holders > maxHolders {
					maxHolders = holders
				}
				mu.Unlock()
				time.Sleep(200 * time.Microsecond)
				mu.Lock()
				holders--
				mu.Unlock()
				if err := lk.Release(); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if maxHolders != 1 {
			t.Fatalf("round %d: %d holders at once", round, maxHolders)
		}
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range left {
			if strings.Contains(f, ".lock") && filepath.Base(f) != guardName {
				t.Errorf("left behind: %s", f)
			}
		}
	}
}
