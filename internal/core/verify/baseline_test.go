package verify

import (
	"context"
	"fmt"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Issue 26 item 7: an editor who writes the hashes again (the algorithm
// is documented) passes every hash check; the last checkpoint's copy of
// the ledger still tells the edit, the removed entry and record.
func TestBaselineCatchesEditsHashedAgain(t *testing.T) {
	t.Parallel()
	const l7 = ".agentx/state/clarifications/issue-7.json"
	tests := []struct {
		name string
		edit func(l *ledger.Ledger)
		want []string
	}{
		{"nothing changed", func(*ledger.Ledger) {}, nil},
		{"an answer appended through the protocol", func(l *ledger.Ledger) {
			r := &l.Clarifications[0]
			r.Thread = append(r.Thread, ledger.Entry{Round: 1, From: "engineer", Type: ledger.Resolution, Body: "Done.", Timestamp: ts(3 * time.Minute)}.Sealed())
			r.Status = ledger.Resolved
			at := ts(3 * time.Minute)
			r.ResolvedAt = &at
		}, nil},
		{"to and maxRounds, record hash written again", func(l *ledger.Ledger) {
			r := &l.Clarifications[0]
			r.To, r.MaxRounds = "reviewer", 50
			r.Seal()
		}, []string{"RECORD_REWRITTEN " + l7 + " CLR-7-001"}},
		{"an entry edited, its hash written again", func(l *ledger.Ledger) {
			r := &l.Clarifications[0]
			r.Thread[1].Body = "Something else."
			r.Thread[1] = r.Thread[1].Sealed()
		}, []string{"RECORD_REWRITTEN " + l7 + " CLR-7-001#2"}},
		{"an entry removed", func(l *ledger.Ledger) {
			r := &l.Clarifications[0]
			r.Thread = r.Thread[:1]
			r.Status = ledger.Pending
		}, []string{"RECORD_REWRITTEN " + l7 + " CLR-7-001#2"}},
		{"the record removed", func(l *ledger.Ledger) {
			l.Clarifications = []ledger.Record{}
		}, []string{"RECORD_DELETED " + l7 + " CLR-7-001"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := fixture(t)
			base := fstest.MapFS{}
			for _, issue := range []int{5, 7} {
				data, err := os.ReadFile(ws.LedgerFile(issue))
				if err != nil {
					t.Fatal(err)
				}
				base[fmt.Sprintf("state/clarifications/issue-%d.json", issue)] = &fstest.MapFile{Data: data}
			}
			rewrite(t, ws, 7, tt.edit)
			rep, err := Run(ws, Options{Now: func() time.Time { return t0.Add(time.Hour) }, Baseline: &Baseline{Source: "checkpoint abc", FS: base}, beforeRecheck: alone().beforeRecheck})
			if err != nil {
				t.Fatal(err)
			}
			if got := errorsOf(rep, Error); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("errors = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("a ledger removed", func(t *testing.T) {
		t.Parallel()
		ws := fixture(t)
		data, err := os.ReadFile(ws.LedgerFile(7))
		if err != nil {
			t.Fatal(err)
		}
		base := fstest.MapFS{"state/clarifications/issue-7.json": &fstest.MapFile{Data: data}}
		if err := os.Remove(ws.LedgerFile(7)); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(ws, Options{Now: func() time.Time { return t0.Add(time.Hour) }, Baseline: &Baseline{Source: "checkpoint abc", FS: base}, beforeRecheck: alone().beforeRecheck})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(errorsOf(rep, Error)), "[LEDGER_DELETED "+l7+"]"; got != want {
			t.Fatalf("errors = %s, want %s", got, want)
		}
	})
}

// rewrite decodes issue's ledger, applies edit and writes it back.
func rewrite(t *testing.T, ws workspace.Workspace, issue int, edit func(*ledger.Ledger)) {
	t.Helper()
	data, err := os.ReadFile(ws.LedgerFile(issue))
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	edit(l)
	if data, err = jsonfile.Marshal(l); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws.LedgerFile(issue), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Issue 26 item 7: verify beside a writer read the manifest between the
// writer's issue file and manifest writes and exited 1. A manifest
// problem is read again before it is reported; one that lasts is.
func TestManifestLagOfAWriteIsReadAgain(t *testing.T) {
	t.Parallel()
	for _, lasting := range []bool{false, true} {
		t.Run(fmt.Sprintf("lasting=%v", lasting), func(t *testing.T) {
			t.Parallel()
			ws := fixture(t)
			path := filepath.Join(ws.MemoryDir(), "manifest.json")
			good, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The manifest as a writer leaves it between its two writes:
			// one observation behind.
			edit(t, path, obsIDs(t, ws, 7)[0], "OBS-gone")
			reads := 0
			opt := Options{beforeRecheck: func() {
				reads++
				if !lasting {
					if err := os.WriteFile(path, good, 0o644); err != nil {
						t.Error(err)
					}
				}
			}}
			rep, err := Run(ws, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := errorsOf(rep, Error)
			if reads != 1 {
				t.Errorf("read again %d times, want once", reads)
			}
			if lasting == (len(got) == 0) {
				t.Fatalf("errors %v (lasting %v)", got, lasting)
			}
		})
	}
}

// Writers storing observations the whole time verify runs: no reading is
// an error (before, about one in three was: a manifest a write behind).
func TestVerifyBesideWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs writers for a while")
	}
	t.Parallel()
	ws := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	// The writers write beside each verify, a bounded number of writes
	// each time (the CPU is bounded, not the time): unpaced, they stored
	// about 700 observations in the 15 verifies, and every verify read
	// all of them again (issue 37). A round's writes are granted just
	// before its verify starts, so they land while it reads.
	const writers, perRound, rounds = 2, 8, 15
	grant := make(chan struct{}, writers*perRound)
	// A recheck waits until the writes in flight have ended, not for
	// verify's 100 ms pause: the pause stands for a writer finishing its
	// issue file and manifest writes, which on a loaded machine may take
	// longer (a verdict on timing), and here it is the event itself; the
	// writers go on with the round's other writes while verify reads
	// again (issue 37: the 15 pauses were most of the test's time).
	var writing [writers]sync.Mutex
	settled := func() {
		for i := range writing {
			// Empty: taking the lock is waiting for the write in flight.
			writing[i].Lock()
			writing[i].Unlock()
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			store := memory.New(ws.MemoryDir(), lock.New(lock.Options{}), clock.Real{})
			// As every agentx writer: each write has its trail line, so the
			// anchoring check (issue 32) runs beside them too.
			store.NoSync, store.Audit = true, &audit.Trail{Dir: ws.StateDir()}
			for i := 0; ; i++ {
				select {
				case <-grant:
				case <-ctx.Done():
					return
				}
				writing[w].Lock()
				_, err := store.Store(ctx, []memory.Observation{{Agent: "engineer", IssueNumber: 5 + 2*w, Category: memory.KeyFact,
					Content: fmt.Sprintf("writer %d stored fact number %d about the cache layer", w, i)}})
				writing[w].Unlock()
				if err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	defer func() { cancel(); wg.Wait() }()
	for range rounds {
		for range writers * perRound {
			select {
			case grant <- struct{}{}:
			default: // the writers are behind: what is left is theirs
			}
		}
		rep, err := Run(ws, Options{beforeRecheck: settled})
		if err != nil {
			t.Fatal(err)
		}
		if got := errorsOf(rep, Error); len(got) > 0 {
			t.Fatalf("verify beside writers: %v", got)
		}
	}
}

// replaced tells a manifest written between two looks from the same one:
// a write is a rename (another file), so even one of the same size and
// time is seen.
func TestReplaced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	stat := func() os.FileInfo {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := stat()
	// The same bytes and time, written as a writer does: a new file renamed
	// over the old.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, first.ModTime(), first.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		a, b os.FileInfo
		want bool
	}{
		{"unchanged", first, first, false},
		{"renamed over, same size and time", first, stat(), true},
		{"appeared", nil, first, true},
		{"vanished", first, nil, true},
		{"absent both times", nil, nil, false},
	} {
		if got := replaced(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: replaced = %v, want %v", tc.name, got, tc.want)
		}
	}
}
