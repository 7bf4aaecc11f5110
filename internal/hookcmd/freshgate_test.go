package hookcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// memDirStamp is what the search's freshness gate (memory/fresh.go)
// compares of the memory directory: its size and modification time.
func memDirStamp(t *testing.T, root string) string {
	t.Helper()
	info, err := os.Stat(filepath.Join(root, ".agentx", "memory"))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d bytes, modified %d", info.Size(), info.ModTime().UnixNano())
}

// A hook start after a write judges the changed issue file against the
// trail, saves the anchors index and journals its recall. None of that
// renames a file into the memory directory: it would turn the search's freshness
// gate off, and the next search and hook start would stat every issue
// file (issue 35: 20,000 at 1M observations, 40-60 ms each).
func TestHooksLeaveTheMemoryDirectory(t *testing.T) {
	t.Parallel()
	w := newAnchorWS(t)
	w.ok("hook", "start", "--agent", "engineer", "--issue", "5")
	w.ok("memory", "add", "--agent", "engineer", "--issue", "5", "--category", "key-fact", "The cache layer retries twice")
	before := memDirStamp(t, w.root)
	w.ok("hook", "start", "--agent", "engineer", "--issue", "5")
	if got := memDirStamp(t, w.root); got != before {
		t.Fatalf("hook start changed the memory directory: %s -> %s", before, got)
	}
	for _, name := range []string{"anchors.state", "recall-pending.jsonl"} {
		if _, err := os.Stat(filepath.Join(w.root, ".agentx", "memory", "pending", name)); err != nil {
			t.Fatalf("hook start did not write %s where this test expects it: %v", name, err)
		}
	}
}
