package statebranch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	memsynth "github.com/agentx-dev/agentx/internal/core/memory/synth"
	ledgersynth "github.com/agentx-dev/agentx/internal/core/monitor/synth"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	sbt "github.com/agentx-dev/agentx/internal/core/statebranch/statebranchtest"
)

// BenchmarkSync measures a sync of a 1,000-issue, 5,000-record,
// 50,000-observation state between two clones of a bare remote on disk,
// with real git fetch and push. ms-beyond-transfer/op is the sync's own
// cost: the whole sync minus the time in git fetch and git push.
//
//	go test -run '^$' -bench BenchmarkSync -benchtime 20x ./internal/core/statebranch
func BenchmarkSync(b *testing.B) {
	sbt.Env(b)
	remote := sbt.Remote(b)
	a, other := sbt.Clone(b, remote), sbt.Clone(b, remote)
	if err := ledgersynth.Write(a, ledgersynth.Options{Issues: 1000, Records: 5000, Open: 200, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	end := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	st := memory.New(filepath.Join(a, ".agentx", "memory"), lock.New(lock.Options{}), clock.Real{})
	st.NoSync = true
	if _, err := st.Import(context.Background(), memsynth.Observations(50000, 1000, 1, end)); err != nil {
		b.Fatal(err)
	}
	opts := func(root string) statebranch.Options {
		return statebranch.Options{Root: root, Merge: sbt.UnionMerge, Valid: sbt.Valid, Lost: sbt.Lost, Locks: lock.New(lock.Options{})}
	}
	sync := func(root string) (*statebranch.Result, float64) {
		start := time.Now()
		res, err := statebranch.Sync(context.Background(), opts(root))
		if err != nil {
			b.Fatal(err)
		}
		total := float64(time.Since(start).Microseconds()) / 1000
		return res, total - res.FetchMillis - res.PushMillis
	}
	sync(a)
	sync(other)
	// touch changes a state file the way a writer does (a new file
	// replaces the old): its content gains a trailing newline.
	touch := func(root, rel string) {
		p := filepath.Join(root, ".agentx", filepath.FromSlash(rel))
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		tmp := p + ".bench"
		if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			b.Fatal(err)
		}
	}
	// tenIssues changes 5 ledgers and 5 memory files starting at issue n.
	tenIssues := func(root string, n int) {
		for i := range 5 {
			touch(root, fmt.Sprintf("state/clarifications/issue-%d.json", (n+i)%1000+1))
			touch(root, fmt.Sprintf("memory/issue-%d.json", (n+5+i)%1000+1))
		}
	}

	b.Run("nothing-changed", func(b *testing.B) {
		var beyond float64
		for range b.N {
			res, own := sync(a)
			if res.Commit != "" || res.Fetches != 1 || len(res.Written) != 0 {
				b.Fatalf("something changed: %+v", res)
			}
			beyond += own
		}
		b.ReportMetric(beyond/float64(b.N), "ms-beyond-transfer/op")
	})
	b.Run("10-local-10-remote", func(b *testing.B) {
		var beyond float64
		for i := range b.N {
			b.StopTimer()
			tenIssues(other, i*20)
			sync(other)
			tenIssues(a, i*20+10)
			b.StartTimer()
			res, own := sync(a)
			if !res.Pushed || len(res.Written) != 10 {
				b.Fatalf("sync: %+v", res)
			}
			beyond += own
		}
		b.ReportMetric(beyond/float64(b.N), "ms-beyond-transfer/op")
	})
}
