package digest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// TestLocalSource reads a workspace on disk: ledgers (a corrupt one left
// out with a warning), the event log and the memory index's times.
func TestLocalSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := workspace.Workspace{Root: t.TempDir()}
	clk := clock.NewFake(at("2026-11-17T09:00:00Z"))
	locks := lock.New(lock.Options{Clock: clk})
	for _, l := range ledgersOf(
		rec("CLR-1-001", "engineer", "architect", "a", ledger.Pending, "2026-11-17T09:00:00.000Z"),
		rec("CLR-2-001", "engineer", "architect", "b", ledger.Pending, "2026-11-18T09:00:00.000Z"),
	) {
		data, err := jsonfile.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.Write(ws.LedgerFile(l.IssueNumber), data, atomicfile.Options{NoSync: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(ws.LedgerFile(3), []byte(`{"issueNumber": 3, "clarifications": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	store := memory.New(ws.MemoryDir(), locks, clk)
	for _, day := range []string{"2026-11-10T12:00:00Z", "2026-11-17T12:00:00Z", "2026-11-18T12:00:00Z"} {
		clk.Set(at(day))
		if _, err := store.Store(ctx, []memory.Observation{{Agent: "engineer", IssueNumber: 1, Category: memory.Decision,
			Content: "decided on " + day}}); err != nil {
			t.Fatal(err)
		}
	}
	log := &events.Log{Path: ws.EventsFile(), Locks: locks, Clock: clk}
	if err := log.Append(ctx, events.MemoryRecalled, events.MemoryPayload{Agent: "engineer", Count: 2}); err != nil {
		t.Fatal(err)
	}

	var warned []string
	src := &Local{WS: ws, Store: store, Log: log, Warn: func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }}
	in, err := Load(ctx, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Ledgers) != 2 || len(warned) != 1 {
		t.Fatalf("%d ledgers, warnings %v", len(in.Ledgers), warned)
	}
	rep := Compute(in, Options{Since: since, Until: until})
	m := rep.Current.Memory
	if rep.Current.Opened != 2 || m.Stored != 2 || m.StoreSize != 3 || m.Recalled != 2 || rep.Prior.Memory.Stored != 1 || rep.MemoryTokens == 0 {
		t.Fatalf("figures %+v memory %+v", rep.Current, m)
	}

	// Without Warn a corrupt ledger fails the read; without a store the
	// memory figures are zero.
	if _, err := Load(ctx, &Local{WS: ws}, nil); err == nil {
		t.Fatal("a corrupt ledger was skipped silently")
	}
	empty := &Local{WS: workspace.Workspace{Root: t.TempDir()}, Store: memory.New(t.TempDir()+"/none", locks, clk)}
	in, err = Load(ctx, empty, nil)
	if err != nil || len(in.Ledgers) != 0 || in.Memory == nil || len(in.Memory.Times) != 0 {
		t.Fatalf("empty workspace: %+v %v", in, err)
	}
	if _, err := os.Stat(empty.Store.Dir); !os.IsNotExist(err) {
		t.Fatal("reading created the memory directory")
	}
}
