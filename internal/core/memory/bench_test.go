package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	. "github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
)

func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	s := newExtStore(b)
	s.Clock = clock.Real{}
	s.Locks = lock.New(lock.Options{})
	s.NoSync = false // whole writes, fsync included, as the CLI does them
	if _, err := s.Import(context.Background(), synth.Observations(n, max(n/50, 1), 3, time.Now())); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkStoreBatch50 stores a batch of 50 observations (one capture)
// into stores of 10K and 100K observations.
func BenchmarkStoreBatch50(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("store=%d", n), func(b *testing.B) {
			s := benchStore(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				batch := make([]Observation, 50)
				for j := range batch {
					// A capture lands in one existing issue (of ~50 observations).
					batch[j] = Observation{Agent: "engineer", IssueNumber: 1 + i%(n/50), Category: KeyFact,
						Content: fmt.Sprintf("benchmark observation %d of batch %d about the cache layer", j, i)}
				}
				if _, err := s.Store(context.Background(), batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearch is the in-process part of `memory search` (open the
// index, rank, read 20 rows).
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("store=%d", n), func(b *testing.B) {
			s := benchStore(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(context.Background(), Query{Text: "token refresh"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRemove removes one observation (the re-render path that
// compaction also takes) from a store of 100K observations.
func BenchmarkRemove(b *testing.B) {
	s := benchStore(b, 100_000)
	rows, err := s.Search(context.Background(), Query{Text: "cache", Limit: b.N})
	if err != nil || len(rows) < b.N {
		b.Fatalf("%d rows, %v", len(rows), err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, err := s.Remove(context.Background(), rows[i].ID); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
