//go:build unix

package memindex_test

import (
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/memindex"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/memory/synth"
)

// BenchmarkSearchSegs is the engine alone (no store, no rows) on the
// 100K observations of BenchmarkSearchCPU's generator, stored by issue as
// a rebuild stores them, for the three queries of scripts/bench-fts.sh:
// "deadlock queue" is the one whose top is decided by a thousand ties.
func BenchmarkSearchSegs(b *testing.B) {
	obs := synth.Observations(100_000, 2_000, 3, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	slices.SortStableFunc(obs, func(x, y memory.Observation) int { return x.IssueNumber - y.IssueNumber })
	bl := memindex.NewBuilder()
	for _, o := range obs {
		t, _ := time.Parse(time.RFC3339Nano, o.Timestamp)
		bl.Add(memindex.Doc{Issue: o.IssueNumber, Time: t.UnixMilli(), Agent: o.Agent, Category: string(o.Category)}, o.Summary, o.Content)
	}
	ix, err := memindex.Decode(bl.Encode(memindex.Stamp{}), true)
	if err != nil {
		b.Fatal(err)
	}
	segs := []memindex.Seg{{Ix: ix, Dead: func(int) bool { return false }}}
	obs, bl = nil, nil
	runtime.GC()
	for _, q := range []string{"token refresh", "deadlock queue", "cache redis"} {
		b.Run(q, func(b *testing.B) {
			start := cpuNow(b)
			for b.Loop() {
				if _, err := memindex.SearchSegs(segs, memindex.Query{Text: q}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuNow(b)-start)/1e3/float64(b.N), "cpu-us/op")
		})
	}
}

// cpuNow is the process's CPU time (user and system) in ns: on a shared
// machine the wall time per search says more about the others.
func cpuNow(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
