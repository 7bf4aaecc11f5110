package memanchor

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// dirStamp is what the search's freshness gate compares of the memory
// directory (memory/fresh.go): its size and times.
func dirStamp(t *testing.T, dir string) string {
	t.Helper()
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d bytes, modified %d", info.Size(), info.ModTime().UnixNano())
}

// `hook start` saves the anchors index after judging an issue file a
// write changed. The files live in the pending directory: a save leaves
// the memory directory as it was, so it does not turn off the search's
// freshness gate for the next search and hook start (issue 35: at 1M
// observations each then stat'ed 20,000 issue files again).
func TestSaveLeavesTheMemoryDirectory(t *testing.T) {
	t.Parallel()
	f := newFix(t)
	_ = findings(t, f.ws, 5, 7)
	state := filepath.Join(f.ws.MemoryDir(), workspace.MemoryPendingName, workspace.AnchorsStateName)
	f.add(t, 7, "One more note")
	before, _ := os.ReadFile(state)
	dir := dirStamp(t, f.ws.MemoryDir())
	_ = findings(t, f.ws, 5, 7)
	after, err := os.ReadFile(state)
	if err != nil || string(after) == string(before) {
		t.Fatalf("the index was not saved after the write (%v): this test no longer shows a save", err)
	}
	if got := dirStamp(t, f.ws.MemoryDir()); got != dir {
		t.Fatalf("saving the anchors index changed the memory directory: %s -> %s", dir, got)
	}
}

// The files of the old layout (in the memory directory) are removed at
// the first save: derived, they are made again in the new place.
func TestSaveRemovesTheOldLayout(t *testing.T) {
	t.Parallel()
	f := newFix(t)
	for _, name := range []string{workspace.AnchorsBaseName, workspace.AnchorsStateName} {
		if err := os.WriteFile(filepath.Join(f.ws.MemoryDir(), name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = findings(t, f.ws, 5, 7)
	for _, name := range []string{workspace.AnchorsBaseName, workspace.AnchorsStateName} {
		if _, err := os.Stat(filepath.Join(f.ws.MemoryDir(), name)); !os.IsNotExist(err) {
			t.Errorf("%s of the old layout is still there: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(f.ws.MemoryDir(), workspace.MemoryPendingName, name)); err != nil {
			t.Errorf("%s not saved in the pending directory: %v", name, err)
		}
	}
}
