package ledger

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
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
	// The writer finishes once the reader has paused for its lock (an
	// event, not a time: the reader waits for it up to TornWait).
	var finish sync.Once
	onTornWaitAt(path, func() {
		finish.Do(func() {
			_ = os.WriteFile(path, full, 0o644)
			_ = os.Remove(lockPath)
		})
	})
	l, err := LoadFile(path, 7)
	if err != nil || l.IssueNumber != 7 {
		t.Fatalf("%v %+v", err, l)
	}
	paused := tornWaitsAt(path)
	if paused == 0 {
		t.Fatal("the reader did not wait for the writer's lock")
	}
	// No lock held: a file that does not parse is reported at once.
	if err := os.WriteFile(path, full[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path, 7); err == nil {
		t.Fatal("unlocked corrupt file: no error")
	}
	if n := tornWaitsAt(path) - paused; n != 0 {
		t.Fatalf("unlocked corrupt file: the reader paused %d times", n)
	}
}

// `clarify --all` lists through LoadAll: a ledger caught mid-rewrite under
// its lock is waited for there too, never dropped from the listing (issue
// 22 item 5: 42% of `clarify --all --json` reads lost that issue).
func TestLoadAllWaitsOutATornRewriteUnderLock(t *testing.T) {
	t.Parallel()
	ws := workspace.Workspace{Root: t.TempDir()}
	s := &Store{WS: ws, Locks: lock.New(lock.Options{})}
	if err := os.MkdirAll(ws.ClarificationsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	full := func(n int) []byte {
		return []byte(fmt.Sprintf(`{"issueNumber": %d, "clarifications": []}`+"\n", n))
	}
	for _, n := range []int{1, 2, 3} {
		if err := os.WriteFile(ws.LedgerFile(n), full(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	torn := ws.LedgerFile(2)
	if err := os.WriteFile(torn, nil, 0o644); err != nil { // truncated, not yet written
		t.Fatal(err)
	}
	lockPath := lock.PathFor(torn)
	if err := os.WriteFile(lockPath, []byte(`{"pid":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(100 * time.Millisecond)
		_ = os.WriteFile(torn, full(2), 0o644)
		_ = os.Remove(lockPath)
	}()
	loaded, err := s.LoadAll()
	<-done
	if err != nil || len(loaded) != 3 {
		t.Fatalf("LoadAll: %v, %d ledgers", err, len(loaded))
	}
	for _, l := range loaded {
		if l.Err != nil || l.Ledger == nil || l.Ledger.IssueNumber != l.Issue {
			t.Fatalf("issue %d: %v %+v", l.Issue, l.Err, l.Ledger)
		}
	}
}
