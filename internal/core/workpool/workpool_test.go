package workpool

import (
	"context"
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

// A cancelled context starts no new call and is the error.
func TestRunStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int32
		err := Run(ctx, 1000, workers, func(i int) {
			if calls.Add(1) == 10 {
				cancel()
			}
		})
		if err != context.Canceled || calls.Load() >= 1000 {
			t.Errorf("workers=%d: err %v after %d calls", workers, err, calls.Load())
		}
	}
}
