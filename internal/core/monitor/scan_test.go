package monitor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func writeLedger(t *testing.T, dir string, issue int, recs ...ledger.Record) {
	t.Helper()
	data, err := jsonfile.Marshal(&ledger.Ledger{IssueNumber: issue, Clarifications: recs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("issue-%d.json", issue)), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScannerSkipsOldClosedLedgersAndSeesEveryChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := 1; i <= 5; i++ {
		writeLedger(t, dir, i, rec(i, 1, "engineer", "architect", true, ledger.Resolved))
	}
	writeLedger(t, dir, 6, rec(6, 1, "engineer", "architect", true, ledger.Pending))
	// The wall clock of the scanner runs ahead, so the files are "old".
	later := time.Now().Add(time.Minute)
	s := &Scanner{Dir: dir, Now: func() time.Time { return later }}

	first, err := s.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if first.Read != 6 || first.Decoded != 1 || len(first.Open) != 1 || len(first.Issues) != 6 {
		t.Fatalf("first scan: read %d decoded %d open %d issues %v", first.Read, first.Decoded, len(first.Open), first.Issues)
	}
	second, _ := s.Scan()
	if second.Read != 0 || len(second.Open) != 1 || second.Open[0].ID != "CLR-6-001" {
		t.Fatalf("second scan read %d (want 0: all from the index), open %v", second.Read, second.Open)
	}

	// An old tool rewrites a closed ledger in place with a new open record
	// of the very same size: the identity (change time) still differs.
	closed := rec(3, 1, "engineer", "architect", true, ledger.Resolved)
	writeLedger(t, dir, 3, closed)
	data, _ := os.ReadFile(filepath.Join(dir, "issue-3.json"))
	data = bytes.Replace(data, []byte(`"resolved"`), []byte(`"pending" `), 1)
	f, err := os.OpenFile(filepath.Join(dir, "issue-3.json"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	third, _ := s.Scan()
	if len(third.Open) != 2 {
		t.Fatalf("in-place change missed: open %d", len(third.Open))
	}

	// Deleting the index loses nothing.
	if err := os.Remove(filepath.Join(dir, IndexName)); err != nil {
		t.Fatal(err)
	}
	fourth, _ := s.Scan()
	if len(fourth.Open) != 2 || fourth.Read != 6 {
		t.Fatalf("without index: open %d read %d", len(fourth.Open), fourth.Read)
	}
}

func TestScannerDoesNotTrustFreshFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeLedger(t, dir, 1, rec(1, 1, "engineer", "architect", true, ledger.Resolved))
	s := &Scanner{Dir: dir} // real clock: the file was written just now
	for i := 0; i < 2; i++ {
		sc, err := s.Scan()
		if err != nil {
			t.Fatal(err)
		}
		if sc.Read != 1 {
			t.Fatalf("scan %d skipped a file younger than the racy window", i)
		}
	}
}

func TestScannerMissingDirAndGarbageIndex(t *testing.T) {
	t.Parallel()
	s := &Scanner{Dir: filepath.Join(t.TempDir(), "none")}
	if sc, err := s.Scan(); err != nil || len(sc.Issues) != 0 {
		t.Fatalf("missing dir: %v %v", sc, err)
	}
	dir := t.TempDir()
	writeLedger(t, dir, 1, rec(1, 1, "engineer", "architect", true, ledger.Pending))
	os.WriteFile(filepath.Join(dir, IndexName), []byte(indexHeader+"\nissue-1.json 1 2 3\n"), 0o644)
	s = &Scanner{Dir: dir}
	if sc, err := s.Scan(); err != nil || len(sc.Open) != 1 {
		t.Fatalf("garbage index: %+v %v", sc, err)
	}
}

func TestMayBeOpen(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		`{"status": "resolved"}`:    false,
		`{"status": "pending"}`:     true,
		`{"status":"answered"}`:     true,
		`{"status": "stale"}`:       true,
		`{"status": "p\u0065nd"}`:   true,
		`{"body": "still pending"}`: false,
	} {
		if got := mayBeOpen([]byte(in)); got != want {
			t.Errorf("mayBeOpen(%s) = %v", in, got)
		}
	}
}

func FuzzParseIndex(f *testing.F) {
	f.Add([]byte(indexHeader + "\nissue-1.json 1 2 3 4 -\n"))
	f.Add([]byte(indexHeader + "\nissue-2.json 1 2 3 4 {\"issueNumber\":2,\"clarifications\":[]}\n"))
	f.Add([]byte(indexHeader + "\n"))
	f.Add([]byte("garbage"))
	f.Add([]byte(indexHeader + "\nissue-x.json 1 2 3 4 -\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := parseIndex(data)
		if err != nil {
			return
		}
		// What parses must survive a round trip, and decoding the records
		// of an entry must never panic.
		for name, ie := range idx {
			_, _ = ie.records(len(name))
		}
		again, err := parseIndex(formatIndex(idx))
		if err != nil || !sameIndex(idx, again) {
			t.Fatalf("round trip: %v %v %v", idx, again, err)
		}
	})
}

func TestScannerTakesWhatThisProcessWroteAndDecodesAnyOtherBytes(t *testing.T) {
	t.Parallel()
	ws := workspace.Workspace{Root: t.TempDir()}
	st := &ledger.Store{WS: ws, Locks: lock.New(lock.Options{}), NoSync: true}
	for i, status := range []ledger.Status{ledger.Pending, ledger.Resolved, ledger.Answered} {
		if _, err := st.Update(context.Background(), 7, func(l *ledger.Ledger) error {
			l.Clarifications = append(l.Clarifications, rec(7, i+1, "engineer", "architect", true, status))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	s := &Scanner{Dir: ws.ClarificationsDir(), NoIndex: true, Written: st}
	scan, err := s.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if scan.Read != 1 || scan.Decoded != 0 || len(scan.Open) != 2 {
		t.Fatalf("read %d decoded %d open %d: want the written ledger read, not decoded, with 2 open records",
			scan.Read, scan.Decoded, len(scan.Open))
	}
	decoding := &Scanner{Dir: ws.ClarificationsDir(), NoIndex: true}
	plain, err := decoding.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(scan.Open, plain.Open) {
		t.Fatalf("open records from the store differ from decoding:\n%+v\n%+v", scan.Open, plain.Open)
	}

	// Another writer changes the file in place to bytes of the same size
	// (the first record goes stale): compared, not taken for ours.
	path := ws.LedgerFile(7)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"status": "pending"`), []byte(`"status": "stale"  `), 1)
	if len(edited) != len(data) || bytes.Equal(edited, data) {
		t.Fatal("the fixture has no pending record to edit")
	}
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	same, err := s.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if same.Decoded != 1 || len(same.Open) != 2 || same.Open[0].Status != ledger.Stale {
		t.Fatalf("after a same-size edit: decoded %d open %+v, want it decoded with CLR-7-001 stale", same.Decoded, same.Open)
	}

	// Another writer (here: by hand) resolves one: its bytes are decoded.
	writeLedger(t, ws.ClarificationsDir(), 7, rec(7, 1, "engineer", "architect", true, ledger.Resolved),
		rec(7, 2, "engineer", "architect", true, ledger.Resolved), rec(7, 3, "engineer", "architect", true, ledger.Answered))
	after, err := s.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if after.Decoded != 1 || len(after.Open) != 1 || after.Open[0].ID != "CLR-7-003" {
		t.Fatalf("after another writer: decoded %d open %+v, want CLR-7-003 alone, decoded", after.Decoded, after.Open)
	}
}
