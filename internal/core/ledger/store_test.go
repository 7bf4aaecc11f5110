package ledger

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/lock"
)

// A reader that meets a ledger mid-rewrite by the TypeScript tool (it
// truncates, then writes, under its lock) reads it again once the writer
// is done, instead of reporting it corrupt and dropping the issue.
func TestLoadWaitsOutATornRewriteUnderLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "issue-7.json")
	full := []byte(`{"issueNumber": 7, "clarifications": []}` + "\n")
	if err := os.WriteFile(path, full[:10], 0o644); err != nil { // truncated, mid-write
		t.Fatal(err)
	}
	lockPath := lock.PathFor(path)
	if err := os.WriteFile(lockPath, []byte(`{"pid":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = os.WriteFile(path, full, 0o644)
		_ = os.Remove(lockPath)
	}()
	l, err := LoadFile(path, 7)
	if err != nil || l.IssueNumber != 7 {
		t.Fatalf("%v %+v", err, l)
	}
	// No lock held: a file that does not parse is reported at once.
	if err := os.WriteFile(path, full[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := LoadFile(path, 7); err == nil || time.Since(start) > time.Second {
		t.Fatalf("unlocked corrupt file: %v after %s", err, time.Since(start))
	}
}
