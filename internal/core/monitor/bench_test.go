package monitor

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/monitor/synth"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// benchWorkspace generates a workspace once per benchmark; the scanner's
// clock runs ahead so the generated files count as old (past the racy
// window) without sleeping.
func benchWorkspace(b *testing.B, issues, records, open int) (workspace.Workspace, *Scanner) {
	b.Helper()
	root := b.TempDir()
	if err := synth.Write(root, synth.Options{Issues: issues, Records: records, Open: open, Seed: 1, Now: t0}); err != nil {
		b.Fatal(err)
	}
	ws := workspace.Workspace{Root: root}
	later := time.Now().Add(time.Minute)
	s := &Scanner{Dir: ws.ClarificationsDir(), Now: func() time.Time { return later }}
	if _, err := s.Scan(); err != nil { // builds the index
		b.Fatal(err)
	}
	return ws, s
}

func benchScan(b *testing.B, issues, records, open int) {
	_, s := benchWorkspace(b, issues, records, open)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc, err := s.Scan()
		if err != nil || len(sc.Open) != open {
			b.Fatalf("scan: %v, %d open", err, len(sc.Open))
		}
	}
}

// The scan is what runs on every hook: 200 open records among 1,000 and
// 10,000 issues should cost about the same.
func BenchmarkScan1kIssues5kRecords200Open(b *testing.B)   { benchScan(b, 1000, 5000, 200) }
func BenchmarkScan10kIssues50kRecords200Open(b *testing.B) { benchScan(b, 10000, 50000, 200) }
func BenchmarkScan1kIssues5kRecords20Open(b *testing.B)    { benchScan(b, 1000, 5000, 20) }

// BenchmarkScanNoIndex is the baseline: every ledger read and decoded.
func BenchmarkScanNoIndex1kIssues(b *testing.B) {
	_, s := benchWorkspace(b, 1000, 5000, 200)
	s.NoIndex = true
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Scan(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadAllBaseline decodes every ledger the way `clarify` lists them.
func BenchmarkLoadAllBaseline1kIssues(b *testing.B) {
	ws, _ := benchWorkspace(b, 1000, 5000, 200)
	store := &ledger.Store{WS: ws}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := store.LoadAll(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDetect200Open(b *testing.B) {
	_, s := benchWorkspace(b, 1000, 5000, 200)
	sc, _ := s.Scan()
	now := t0.Add(time.Minute)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := Detect(sc.Open, now, config.DefaultPriority)
		if !p.Empty() {
			b.Fatalf("unexpected findings: %+v", p)
		}
	}
}

func BenchmarkCheck1kIssues(b *testing.B) {
	ws, s := benchWorkspace(b, 1000, 5000, 200)
	clk := clock.NewFake(t0.Add(time.Minute))
	locks := lock.New(lock.Options{Clock: clk})
	rt := router.New(router.Options{WS: ws, Locks: locks, Clock: clk,
		Events: &events.Log{Path: ws.EventsFile(), Locks: locks, Clock: clk}})
	m := &Monitor{Router: rt, Scanner: s}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Check(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	_ = os.Remove(ws.EventsFile())
}
