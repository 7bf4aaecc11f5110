package artifact_test

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/artifact/synth"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// The large-project profile of seed 004: 2,000 artifacts over 500 issues.
func bigStore(b *testing.B) *artifact.Store {
	b.Helper()
	ws := workspace.Workspace{Root: b.TempDir()}
	if n, err := synth.Generate(ws, 500, 4); err != nil || n != 2000 {
		b.Fatalf("generate: %d, %v", n, err)
	}
	return &artifact.Store{WS: ws, Locks: lock.New(lock.Options{})}
}

// What hook start adds: one issue's ledger read and the agent's brief.
func BenchmarkHookStartBrief(b *testing.B) {
	st := bigStore(b)
	w, err := config.ParseWorkflow("feature.toml", config.DefaultFiles()["workflows/feature.toml"])
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := st.Load(42)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := artifact.Brief(&w, f, "architect"); !ok {
			b.Fatal("no brief")
		}
	}
}

// What ready and the monitor add: every ledger read and its findings.
func BenchmarkScanAll(b *testing.B) {
	st := bigStore(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		files, errs, err := st.LoadAll()
		if err != nil || len(errs) > 0 || len(files) != 500 {
			b.Fatalf("%d files, %v %v", len(files), errs, err)
		}
		stale := 0
		for _, f := range files {
			stale += len(f.Findings())
		}
		if stale != 300 {
			b.Fatalf("%d stale", stale)
		}
	}
}

// What ready and the monitor pay now: one scan, the ledgers nobody wrote
// since the last one from its index.
func BenchmarkScanIndexed(b *testing.B) {
	st := bigStore(b)
	st.Now = later
	if _, err := st.Scan(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc, err := st.Scan()
		if err != nil || sc.Read != 0 || len(sc.Summaries) != 500 {
			b.Fatalf("%+v %v", sc, err)
		}
		stale := 0
		for _, s := range sc.Summaries {
			stale += len(s.Findings)
		}
		if stale != 300 {
			b.Fatalf("%d stale", stale)
		}
	}
}
