//go:build unix

package hookcmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A trail that cannot be read (a FIFO put in its place) does not pass for
// a clean one: recall says its notes were not checked, and hangs on
// nothing.
func TestUnreadableTrailSaidInRecall(t *testing.T) {
	t.Parallel()
	w := newAnchorWS(t)
	path := filepath.Join(w.root, ".agentx", "state", "audit.jsonl")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := w.ok("memory", "recall", "--agent", "engineer", "--issue", "5")
	if !strings.Contains(out, "[agentx: these notes were not checked against the audit trail (") {
		t.Fatalf("recall over a FIFO trail:\n%s", out)
	}
}
