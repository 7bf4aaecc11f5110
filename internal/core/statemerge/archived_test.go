package statemerge

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// Retention's archiving is a removal like any other on the state branch:
// merged with a clone's copy that still holds the observation (and added
// one of its own), the archived observation stays out of the issue file,
// the archive keeps it, and a restore made since outlives the archiving.
func TestArchivedObservationStaysArchivedThroughTheMerge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	st := memory.New(filepath.Join(t.TempDir(), "memory"), lock.New(lock.Options{Clock: clk}), clk)
	stored, err := st.Store(ctx, []memory.Observation{
		{Agent: "engineer", IssueNumber: 42, Category: memory.Decision, Content: "Chose JSON files for the store", SessionID: "s1"},
		{Agent: "engineer", IssueNumber: 42, Category: memory.KeyFact, Content: "Lock order is issue then manifest", SessionID: "s1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) []byte {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	base := read(st.IssuePath(42))
	clk.Advance(100 * 24 * time.Hour)
	gone := stored[0].ID
	if _, err := st.Archive(ctx, 42, func([]memory.Observation) []string { return []string{gone} }); err != nil {
		t.Fatal(err)
	}
	ours, archive := read(st.IssuePath(42)), read(st.ArchivePath(42))
	// The other clone still has it and added one.
	other := obs("obs-engineer-42-9-theirs", 5, "Queue consumers acknowledge after the write")
	f, _ := memory.ParseIssueFile(memoryPath, base)
	f.Observations = append(f.Observations, other)
	theirs, _ := f.Marshal()

	got, _, err := MergeFile(memoryPath, base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := memory.ParseIssueFile(memoryPath, got)
	if ids := obsIDs(m); ids != stored[1].ID+","+other.ID {
		t.Fatalf("merged: %s (the archived %s came back or another was lost)", ids, gone)
	}
	arch, _, err := MergeFile(archivePath, nil, archive, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := memory.ParseIssueFile(archivePath, arch); obsIDs(a) != gone {
		t.Fatalf("archive after the merge: %s", obsIDs(a))
	}

	// Restored here, merged with a copy that still carries the archiving.
	clk.Advance(time.Hour)
	if _, err := st.Restore(ctx, gone); err != nil {
		t.Fatal(err)
	}
	got, _, err = MergeFile(memoryPath, ours, read(st.IssuePath(42)), ours)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := memory.ParseIssueFile(memoryPath, got); !idSetOf(m)[gone] {
		t.Fatalf("the restore was undone by the merge: %s", obsIDs(m))
	}
}

func idSetOf(f *memory.IssueFile) map[string]bool {
	out := map[string]bool{}
	for _, o := range f.Observations {
		out[o.ID] = true
	}
	return out
}
