package digest

import (
	"context"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/monitor/synth"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// BenchmarkDigest1kIssues5kRecords reads 1,000 generated ledgers (5,000
// records) and computes the digest: the whole process's work but startup
// and the memory index (see scripts/bench-digest.sh for the process).
func BenchmarkDigest1kIssues5kRecords(b *testing.B) {
	root := b.TempDir()
	if err := synth.Write(root, synth.Options{Issues: 1000, Records: 5000, Open: 200, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	src := &Local{WS: workspace.Workspace{Root: root}}
	now := time.Now()
	b.ResetTimer()
	for b.Loop() {
		in, err := Load(context.Background(), src, nil)
		if err != nil {
			b.Fatal(err)
		}
		Compute(in, Options{Since: now.AddDate(0, 0, -7), Until: now})
	}
}

// BenchmarkCompute5kRecords is the pure part alone.
func BenchmarkCompute5kRecords(b *testing.B) {
	root := b.TempDir()
	if err := synth.Write(root, synth.Options{Issues: 1000, Records: 5000, Open: 200, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	in, err := Load(context.Background(), &Local{WS: workspace.Workspace{Root: root}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	b.ResetTimer()
	for b.Loop() {
		Compute(in, Options{Since: now.AddDate(0, 0, -7), Until: now})
	}
}
