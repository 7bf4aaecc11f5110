package monitor

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// A check right after this process's writes (Scanner.Changed) reads and
// checks only the ledgers written: the others come from the index, not
// from a directory listing and an fstatat each, so its work follows what
// changed rather than the number of ledgers. A full check still sees
// every change, and without an index the check is a full one.
func TestScanAfterWriteChecksOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 200
	for i := 1; i <= n; i++ {
		writeLedger(t, dir, i, rec(i, 1, "engineer", "architect", true, ledger.Resolved))
	}
	writeLedger(t, dir, 7, rec(7, 1, "engineer", "architect", true, ledger.Pending))
	later := time.Now().Add(time.Minute)
	full := &Scanner{Dir: dir, Now: func() time.Time { return later }}
	after := &Scanner{Dir: dir, Now: full.Now, Changed: []string{"issue-9.json"}}

	// No index yet: the check after a write is a full one.
	if first, err := after.Scan(); err != nil || first.Read != n || len(first.Open) != 1 {
		t.Fatalf("first scan without index: read %d open %d, %v", first.Read, len(first.Open), err)
	}
	// This process writes issue 9; another rewrites issue 3 (a new
	// identity) and makes issue 500.
	writeLedger(t, dir, 9, rec(9, 1, "engineer", "architect", true, ledger.Pending))
	writeLedger(t, dir, 3, rec(3, 1, "engineer", "architect", true, ledger.Pending))
	writeLedger(t, dir, 500, rec(500, 1, "engineer", "architect", true, ledger.Pending))
	got, err := after.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if got.Read != 1 || len(got.Open) != 2 || got.Open[0].IssueNumber != 7 || got.Open[1].IssueNumber != 9 {
		t.Fatalf("after write: read %d (want only issue 9), open %v", got.Read, got.Open)
	}
	if len(got.Issues) != n {
		t.Fatalf("after write: %d issues, want the index's %d", len(got.Issues), n)
	}
	// The next full check sees all of it (issue 9 is in the index now).
	all, err := full.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if all.Read != 2 || len(all.Open) != 4 || len(all.Issues) != n+1 {
		t.Fatalf("full scan: read %d (want issues 3 and 500), open %d (want 4), issues %d", all.Read, len(all.Open), len(all.Issues))
	}
}

// A ledger read while too new to vouch for keeps its old index entry
// (whose identity no longer matches) rather than dropping it: the index,
// a megabyte at 10,000 ledgers, is not rewritten after every write, and
// the next scan still reads the ledger again.
func TestScanKeepsIndexOverANewWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := 1; i <= 5; i++ {
		writeLedger(t, dir, i, rec(i, 1, "engineer", "architect", true, ledger.Resolved))
	}
	later := time.Now().Add(time.Minute)
	old := &Scanner{Dir: dir, Now: func() time.Time { return later }}
	if _, err := old.Scan(); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, IndexName)
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	writeLedger(t, dir, 2, rec(2, 1, "engineer", "architect", true, ledger.Pending))
	// Scanned now, the rewrite is inside the racy window: not vouched for.
	now := &Scanner{Dir: dir}
	got, err := now.Scan()
	if err != nil || got.Read != 1 || len(got.Open) != 1 {
		t.Fatalf("scan after the write: read %d open %d, %v", got.Read, len(got.Open), err)
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(before, after) {
		t.Fatal("the index was rewritten for a ledger it could not vouch for")
	}
	if again, _ := now.Scan(); again.Read != 1 || len(again.Open) != 1 {
		t.Fatalf("next scan: read %d open %d, want the new ledger read again", again.Read, len(again.Open))
	}
}
