package memory

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// bulk imports n observations over n/50 issues (from issue 1).
func bulk(t *testing.T, s *Store, n int) {
	t.Helper()
	words := []string{"cache", "queue", "token", "refresh", "deadlock", "parser", "redis", "session", "retry", "index"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]Observation, 0, n)
	for i := range n {
		issue := 1 + i/50
		o := obs("engineer", issue, KeyFact, fmt.Sprintf("Fact %d: the %s layer talks to the %s after %d tries", i, words[i%10], words[(i/10)%10], i%7))
		o.ID = fmt.Sprintf("obs-engineer-%d-%d-bulk%02d", issue, base.UnixMilli()+int64(i), i%100)
		o.Timestamp = base.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")
		out = append(out, o)
	}
	if _, err := s.Import(context.Background(), out); err != nil {
		t.Fatal(err)
	}
}

// written is how many bytes the files of dir changed since before hold.
func written(t *testing.T, dir string, before map[string]os.FileInfo) int64 {
	t.Helper()
	var total int64
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if was, ok := before[p]; !ok || !was.ModTime().Equal(info.ModTime()) || was.Size() != info.Size() {
			total += info.Size()
		}
		return nil
	})
	return total
}

func statFiles(dir string) map[string]os.FileInfo {
	out := map[string]os.FileInfo{}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				out[p] = info
			}
		}
		return nil
	})
	return out
}

// One capture writes what it changed, whatever the store holds: before
// issue 35 it rendered manifest.json and search.idx again (about 350 bytes
// per observation stored), so the bytes written grew with the store.
func TestWriteCostsWhatChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var cost [2]int64
	for i, n := range []int{1000, 8000} {
		s, _, _ := newTestStore(t)
		bulk(t, s, n)
		time.Sleep(10 * time.Millisecond) // distinct modification times on coarse clocks
		before := statFiles(s.Dir)
		if _, err := s.Store(ctx, []Observation{obs("engineer", 99999, Decision, "Chose the delta segment for cheap writes")}); err != nil {
			t.Fatal(err)
		}
		cost[i] = written(t, s.Dir, before)
		if rows, err := s.Search(ctx, Query{Text: "delta segment"}); err != nil || len(rows) != 1 {
			t.Fatalf("at %d: search after the write: %+v %v", n, rows, err)
		}
		if st, err := s.Stats(ctx); err != nil || st.TotalObservations != n+1 {
			t.Fatalf("at %d: stats %+v %v", n, st, err)
		}
		checkAgree(t, s)
	}
	if cost[1] > cost[0]+512 {
		t.Fatalf("a write at 8,000 observations wrote %d bytes, at 1,000 %d: the cost grows with the store", cost[1], cost[0])
	}
}

// Past the limit the manifest and index may reach (scaled down here), a
// store goes on taking writes and answering searches: the writes land in
// the delta. Before, every write rendered the manifest again and failed.
func TestStorePastTheBaseLimitStaysUsable(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	bulk(t, s, 400)
	info, err := os.Stat(s.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	oldState, oldStore := atomicfile.StateLimit, atomicfile.StoreLimit
	// The next render would pass it; issue files stay well under both.
	atomicfile.StateLimit, atomicfile.StoreLimit = 64<<10, info.Size()+100
	t.Cleanup(func() { atomicfile.StateLimit, atomicfile.StoreLimit = oldState, oldStore })
	for i := range 20 {
		if _, err := s.Store(ctx, []Observation{obs("engineer", 3, KeyFact, fmt.Sprintf("Later fact %d about the scheduler", i))}); err != nil {
			t.Fatalf("write %d past the limit: %v", i, err)
		}
	}
	rows, err := s.Search(ctx, Query{Text: "scheduler", Limit: -1})
	if err != nil || len(rows) != 20 {
		t.Fatalf("search: %d rows, %v", len(rows), err)
	}
	checkAgree(t, s)
}

// The delta is compacted into the base once it passes its limit; what the
// store answers is the same before and after.
func TestDeltaCompactsPastItsLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	s.DeltaLimit = 120
	bulk(t, s, 500) // issues 1..10, 50 each
	for i := range 6 {
		if _, err := s.Store(ctx, []Observation{obs("engineer", 1+i, KeyFact, fmt.Sprintf("Compaction fact %d about the ledger", i))}); err != nil {
			t.Fatal(err)
		}
		checkAgree(t, s)
	}
	if held := s.DeltaIssues(); len(held) > 2 {
		t.Fatalf("the delta holds %d issues past a limit of 120 observations", len(held))
	}
	rows, err := s.Search(ctx, Query{Text: "compaction ledger", Limit: -1})
	if err != nil || len(rows) != 6 {
		t.Fatalf("search: %d rows, %v", len(rows), err)
	}
}

// An issue file edited behind the store (by hand, a checkout) is indexed
// again in memory by a reader, at the cost of that file: the search sees
// the new text, and writes nothing.
func TestReaderIndexesAForeignEditBesideTheIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	bulk(t, s, 300)
	path := s.IssuePath(2)
	f, err := s.readIssue(2)
	if err != nil {
		t.Fatal(err)
	}
	f.Observations[0].Content = "Hand edited: the walrus protocol replaced the queue"
	f.Observations[0].Summary = Summarize(f.Observations[0].Content)
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	before := statFiles(s.Dir)
	var warns []string
	s.Warn = func(f string, a ...any) { warns = append(warns, fmt.Sprintf(f, a...)) }
	rows, err := s.Search(ctx, Query{Text: "walrus"})
	if err != nil || len(rows) != 1 || rows[0].ID != f.Observations[0].ID {
		t.Fatalf("search after the hand edit: %+v %v", rows, err)
	}
	if len(warns) != 0 {
		t.Fatalf("the reader took the slow path: %v", warns)
	}
	if n := written(t, s.Dir, before); n != 0 {
		t.Fatalf("a search wrote %d bytes", n)
	}
}

// One segment searched as segments ranks as the index alone does.
func TestSearchSegsOfOneIsSearch(t *testing.T) {
	t.Parallel()
	s, _, _ := newTestStore(t)
	bulk(t, s, 600)
	ix, unmap, err := memindex.Open(s.IndexPath(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	for _, q := range []memindex.Query{{Text: "cache redis"}, {Text: "token"}, {}, {Text: "queue", Issue: 3}, {Agent: "engineer", Limit: -1}} {
		a, err1 := ix.Search(q)
		b, err2 := memindex.SearchSegs([]memindex.Seg{{Ix: ix}}, q)
		if err1 != nil || err2 != nil || len(a) != len(b) {
			t.Fatalf("%+v: %d and %d hits (%v %v)", q, len(a), len(b), err1, err2)
		}
		for i := range a {
			if a[i].Doc != b[i].Doc || a[i].Score != b[i].Score {
				t.Fatalf("%+v: hit %d is %+v alone, %+v as a segment", q, i, a[i], b[i])
			}
		}
	}
}

// A process killed (SIGKILL) at any point of its writes, compactions of
// the delta into the base included, leaves a store that answers for every
// observation it reported stored, and agrees with its issue files after
// the next write: the delta and the base are derived, and each is replaced
// whole or not at all.
func TestKilledWriterLeavesAUsableStore(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv("AGENTX_MEMORY_KILLED_DIR"); dir != "" {
		killedWriter(t, dir)
		return
	}
	root := t.TempDir()
	dir := filepath.Join(root, "memory")
	s := New(dir, lock.New(lock.Options{Wait: time.Minute}), clock.Real{})
	s.NoSync = true
	bulk(t, s, 1500)
	for round := range 4 {
		ready := filepath.Join(root, fmt.Sprintf("ready-%d", round))
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesAUsableStore$")
		cmd.Env = append(os.Environ(), "AGENTX_MEMORY_KILLED_DIR="+dir, "AGENTX_MEMORY_KILLED_READY="+ready,
			"AGENTX_MEMORY_KILLED_ROUND="+strconv.Itoa(round))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := os.Stat(ready); err == nil {
				break
			}
			if cmd.ProcessState != nil {
				t.Fatal("the writer ended before it was killed")
			}
			time.Sleep(5 * time.Millisecond)
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	logged, err := os.ReadFile(filepath.Join(dir, "..", "stored.log"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reader := New(dir, lock.New(lock.Options{Wait: time.Minute}), clock.Real{})
	reader.NoSync = true
	lines := strings.Fields(string(logged))
	if len(lines) < 4*40 {
		t.Fatalf("the writers reported %d stores", len(lines))
	}
	for _, word := range lines {
		rows, err := reader.Search(ctx, Query{Text: word})
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s, reported stored, is not found: %+v %v", word, rows, err)
		}
	}
	if _, err := reader.Store(ctx, []Observation{obs("engineer", 7, KeyFact, "After the kills the store still takes writes")}); err != nil {
		t.Fatal(err)
	}
	checkAgree(t, reader)
}

// killedWriter stores one observation after another, compacting its delta
// every few, until it is killed; it names each one stored in stored.log.
func killedWriter(t *testing.T, dir string) {
	s := New(dir, lock.New(lock.Options{Wait: time.Minute}), clock.Real{})
	s.NoSync = true
	s.DeltaLimit = 90 // a compaction every few writes
	log, err := os.OpenFile(filepath.Join(dir, "..", "stored.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	round := os.Getenv("AGENTX_MEMORY_KILLED_ROUND")
	for i := 0; ; i++ {
		word := fmt.Sprintf("crashfact%sx%d", round, i)
		o := obs("engineer", 1+i%30, KeyFact, "Killed writer stored "+word)
		if _, err := s.Store(context.Background(), []Observation{o}); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
		if _, err := log.WriteString(word + "\n"); err != nil {
			t.Fatal(err)
		}
		if i == 40 {
			if err := os.WriteFile(os.Getenv("AGENTX_MEMORY_KILLED_READY"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// EachManifestEntry reads the entries ParseManifest reads, each at the
// offset of its "id" member, and refuses what ParseManifest refuses.
func TestEachManifestEntryIsParseManifest(t *testing.T) {
	t.Parallel()
	s, _, _ := newTestStore(t)
	s.DeltaLimit = -1
	bulk(t, s, 120)
	data, err := os.ReadFile(s.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(s.ManifestPath(), data)
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	err = EachManifestEntry(strings.NewReader(string(data)), func(e *Entry, off int64) {
		if !strings.HasPrefix(string(data[off:]), `"id": "`+e.ID+`"`) {
			t.Fatalf("offset %d of %s is at %.20q", off, e.ID, data[off:])
		}
		got = append(got, *e)
	})
	if err != nil || len(got) != len(m.Entries) {
		t.Fatalf("%d entries streamed (%v), %d parsed", len(got), err, len(m.Entries))
	}
	for i := range got {
		if got[i].ID != m.Entries[i].ID || got[i].Summary != m.Entries[i].Summary || got[i].Tokens != m.Entries[i].Tokens {
			t.Fatalf("entry %d: %+v streamed, %+v parsed", i, got[i], m.Entries[i])
		}
	}
	for _, bad := range []string{string(data[:len(data)/2]), string(data) + "{}", "[]", `{"entries": {}}`} {
		if err := EachManifestEntry(strings.NewReader(bad), func(*Entry, int64) {}); err == nil {
			t.Fatalf("accepted %.40q...", bad)
		}
	}
}

// A compaction of a delta holding many issues renders their rows in one
// pass over the manifest (rerenderMany), and the store agrees with its
// files after it.
func TestCompactionOfManyIssues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	s.DeltaLimit = 400
	bulk(t, s, 500) // issues 1..10, 50 each
	for i := range 8 {
		if _, err := s.Store(ctx, []Observation{obs("engineer", 1+i, KeyFact, fmt.Sprintf("Many-issue fact %d about the ledger", i))}); err != nil {
			t.Fatal(err)
		}
		if i == 6 && len(s.DeltaIssues()) != 7 {
			t.Fatalf("the delta holds %v before the compaction", s.DeltaIssues())
		}
	}
	if held := s.DeltaIssues(); len(held) != 0 {
		t.Fatalf("after the compaction the delta still holds %v", held)
	}
	checkAgree(t, s)
	rows, err := s.Search(ctx, Query{Text: "many-issue ledger", Limit: -1})
	if err != nil || len(rows) != 8 {
		t.Fatalf("search: %d rows, %v", len(rows), err)
	}
	if st, err := s.Stats(ctx); err != nil || st.TotalObservations != 508 {
		t.Fatalf("stats: %+v %v", st, err)
	}
}

// A write with a deadline (a hook's) lets the delta grow past its bound
// rather than compact the whole base inside the deadline; the next write
// without one compacts it.
func TestHookWriteLeavesTheCompaction(t *testing.T) {
	t.Parallel()
	s, _, _ := newTestStore(t)
	s.DeltaLimit = 60
	bulk(t, s, 500) // issues 1..10, 50 each
	hook, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	for i := range 4 {
		if _, err := s.Store(hook, []Observation{obs("engineer", 1+i, KeyFact, fmt.Sprintf("Hook fact %d about the ledger", i))}); err != nil {
			t.Fatal(err)
		}
	}
	if held := s.DeltaIssues(); len(held) != 4 {
		t.Fatalf("hook writes compacted: the delta holds %v", held)
	}
	checkAgree(t, s)
	if _, err := s.Store(context.Background(), []Observation{obs("engineer", 9, KeyFact, "A command's fact about the ledger")}); err != nil {
		t.Fatal(err)
	}
	if held := s.DeltaIssues(); len(held) != 0 {
		t.Fatalf("a write without a deadline left the delta past its bound: %v", held)
	}
	checkAgree(t, s)
}
