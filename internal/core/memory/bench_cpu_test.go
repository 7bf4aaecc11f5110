package memory_test

import (
	"context"
	"runtime"
	"syscall"
	"testing"

	. "github.com/agentx-dev/agentx/internal/core/memory"
)

// processCPU is the process's CPU time (user and system), in ns.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkSearchCPU is BenchmarkSearch at 100K observations for the
// three queries of scripts/bench-fts.sh, as CPU per search (cpu-ms/op,
// the process's: the garbage collector's included), the garbage of the
// import collected first: the figure set against sqlite3's `.timer` on the
// FTS5 table (docs/PERFORMANCE.md, issue 35). A file base, as
// agentx-hook keeps a store.
func BenchmarkSearchCPU(b *testing.B) {
	s := benchStore(b, 100_000)
	s.FileBase = true
	if _, err := s.Rebuild(context.Background()); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"token refresh", "deadlock queue", "cache redis"} {
		b.Run(q, func(b *testing.B) {
			if _, err := s.Search(context.Background(), Query{Text: q}); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			b.ResetTimer()
			start := processCPU(b)
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(context.Background(), Query{Text: q}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU(b)-start)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
