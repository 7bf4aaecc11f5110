package workpool

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

func TestRunCallsEachIndexOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, workers int }{{0, 4}, {1, 4}, {7, 1}, {7, 0}, {100, 3}, {3, 8}} {
		seen := make([]atomic.Int32, tc.n)
		if err := Run(context.Background(), tc.n, tc.workers, func(i int) { seen[i].Add(1) }); err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Errorf("n=%d workers=%d: index %d called %d times", tc.n, tc.workers, i, got)
			}
		}
	}
}

// A cancelled context starts no new call and is the error. The worker
// that cancels is held back until another worker is past it, as a thread
// the OS preempts between the call and cancel() would be (on a loaded
// machine the other workers then ran all 1,000 calls, Run returned nil
// and the test failed); a call begun before the cancel lands waits for it.
func TestRunStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int32
		past := make(chan struct{})
		var once sync.Once
		err := Run(ctx, 1000, workers, func(int) {
			switch n := calls.Add(1); {
			case n == 10:
				if workers > 1 {
					<-past
				}
				cancel()
			case n > 10:
				once.Do(func() { close(past) })
				<-ctx.Done()
			}
		})
		// At most one call per other worker after the tenth: each had
		// begun before the cancel and none began after.
		if err != context.Canceled || calls.Load() > int32(10+workers-1) {
			t.Errorf("workers=%d: err %v after %d calls, want context.Canceled after at most %d", workers, err, calls.Load(), 10+workers-1)
		}
	}
}
