// Package workpool owns the one way the core spreads independent work
// over processors: reading, parsing and hashing thousands of state files
// (the monitor's scan, verify, the digest, the memory rebuild, checkpoints).
package workpool

import (
	"context"
	"sync"
	"sync/atomic"
)

// Run calls work(i) for every i in 0..n-1 on up to workers goroutines
// (one when workers < 2 or n < 2, in the caller's goroutine) and returns
// when all calls have returned. Once ctx is done no new call starts; the
// error is ctx's then.
func Run(ctx context.Context, n, workers int, work func(i int)) error {
	workers = min(workers, n)
	if workers < 2 {
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			work(i)
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				work(i)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}
