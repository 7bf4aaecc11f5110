//go:build unix

package memory_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

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
	benchSearchCPU(b, s)
}

// BenchmarkSearchCPUEdited is BenchmarkSearchCPU after a foreign edit:
// issue-7.json rewritten by another tool as scripts/bench-fts.sh does it
// (sed -i: every content prefixed, a new file renamed over the old), the
// index left as it was. Each search indexes the changed file beside the
// index (the first) or takes that work from the reader's overlay (the
// rest), as a `memory search` process after the edit does (issue 35:
// at most 0.5× sqlite3's figures).
func BenchmarkSearchCPUEdited(b *testing.B) {
	s := benchStore(b, 100_000)
	s.FileBase = true
	if _, err := s.Rebuild(context.Background()); err != nil {
		b.Fatal(err)
	}
	path := s.IssuePath(7)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	edited := bytes.ReplaceAll(data, []byte(`"content": "`), []byte(`"content": "Edited by hand: `))
	if bytes.Equal(edited, data) {
		b.Fatal("issue-7.json has no content to edit")
	}
	if err := os.WriteFile(path+".sed", edited, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(path+".sed", path); err != nil {
		b.Fatal(err)
	}
	// Past the freshness gate's racy margin (fresh.go: 100 ms where the
	// file system keeps sub-second times, 2 s elsewhere), so that the
	// first search may record what it found, as bench-fts.sh waits.
	time.Sleep(2500 * time.Millisecond)
	benchSearchCPU(b, s)
}

// benchSearchCPU measures the three queries' searches of s.
func benchSearchCPU(b *testing.B, s *Store) {
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
