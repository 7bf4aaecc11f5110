package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/memindex"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

func copyOld(t *testing.T, s *Store) {
	t.Helper()
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"manifest.json", "issue-29.json"} {
		data, err := os.ReadFile(filepath.Join("testdata/old", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The old implementation's files load, search, and survive our rewrite:
// reference key order, unknown keys kept; in the reference layout the old
// manifest shape plus only our stamp, in the compact one (the default) the
// same entries, each on one line.
func TestOldImplementationFiles(t *testing.T) {
	t.Parallel()
	for _, reference := range []bool{true, false} {
		t.Run(fmt.Sprintf("reference=%v", reference), func(t *testing.T) {
			t.Parallel()
			testOldImplementationFiles(t, reference)
		})
	}
}

func testOldImplementationFiles(t *testing.T, reference bool) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	s.ReferenceManifest = reference
	copyOld(t, s)
	rows, err := s.Search(ctx, Query{Text: "leveldb"})
	if err != nil || len(rows) != 1 || rows[0].ID != "obs-engineer-29-1709035200000-a1b2c3" {
		t.Fatalf("search old store: %+v %v", rows, err)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 29, KeyFact, "Manifest must stay under 3MB")}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.IssuePath(29))
	if !bytes.Contains(data, []byte(`"sessionId": "engineer-1709035100000-x7y8z9",
      "relevanceScore": 0.8
    },`)) {
		t.Fatalf("unknown key not kept in place:\n%s", data)
	}
	m, err := os.ReadFile(s.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile("testdata/old/manifest.json")
	if reference {
		// Our manifest is the old one, one entry longer, plus the stamp.
		oldBody := strings.TrimSuffix(string(old), "\n  ]\n}\n")
		if !strings.HasPrefix(string(m[60:]), oldBody[60:]) {
			t.Fatalf("manifest layout drifted:\n%s", m)
		}
	} else {
		// The same entries as the old one, then ours, one a line.
		om, err := ParseManifest("old", old)
		if err != nil {
			t.Fatal(err)
		}
		nm, err := ParseManifest("m", m)
		if err != nil || len(nm.Entries) != len(om.Entries)+1 || !reflect.DeepEqual(nm.Entries[:len(om.Entries)], om.Entries) {
			t.Fatalf("compact manifest lost the old entries (%v):\n%s", err, m)
		}
		if n := bytes.Count(m, []byte("\n{\"id\":")); n != len(nm.Entries) {
			t.Fatalf("%d compact rows, want %d:\n%s", n, len(nm.Entries), m)
		}
	}
	if _, err := ParseManifest("m", m); err != nil {
		t.Fatal(err)
	}
}

// A search over a corrupt manifest answers from the issue files, reports
// it, and leaves the file as it is: readers never write (issue 14); the
// next writer or `memory rebuild` keeps it aside and rebuilds it.
func TestCorruptManifestIsRebuilt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, warns := newTestStore(t)
	copyOld(t, s)
	corrupt := []byte(`{"version":1,"entries":[{"id":`)
	if err := os.WriteFile(s.ManifestPath(), corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Search(ctx, Query{Text: "json files"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%+v %v", rows, err)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "searched the issue files instead") {
		t.Fatalf("warnings: %q", *warns)
	}
	if m, _ := os.ReadFile(s.ManifestPath()); !bytes.Equal(m, corrupt) {
		t.Fatalf("a reader rewrote the corrupt manifest: %q", m)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 29, KeyFact, "A writer repairs the manifest")}); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(s.ManifestPath() + ".corrupt-*"); len(m) != 1 {
		t.Fatalf("corrupt manifest not kept aside: %v", m)
	}
}

// `memory rebuild` over a corrupt manifest reports it and keeps it aside
// like every other reader does, instead of overwriting it unseen.
func TestRebuildKeepsACorruptManifestAside(t *testing.T) {
	t.Parallel()
	s, _, warns := newTestStore(t)
	copyOld(t, s)
	corrupt := []byte(`{"version":1,"entries":[{"id":`)
	if err := os.WriteFile(s.ManifestPath(), corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Rebuild(context.Background())
	if err != nil || rep.Entries != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	aside, _ := filepath.Glob(s.ManifestPath() + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("corrupt manifest not kept aside: %v", aside)
	}
	if kept, _ := os.ReadFile(aside[0]); string(kept) != string(corrupt) {
		t.Fatalf("kept %q", kept)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "was corrupt") {
		t.Fatalf("warnings: %q", *warns)
	}
}

func TestCorruptIssueFileIsSkippedAndKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, warns := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 7, Decision, "Use Redis for sessions"), obs("engineer", 8, Error, "Redis timeout under load")}); err != nil {
		t.Fatal(err)
	}
	bad := []byte(`{"version":1,"observations":[{"id": oops`)
	if err := os.WriteFile(s.IssuePath(7), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Rebuild(ctx)
	if err != nil || len(rep.Skipped) != 1 || rep.Entries != 2 {
		t.Fatalf("rebuild: %+v %v", rep, err)
	}
	if len(*warns) == 0 || !strings.Contains((*warns)[0], s.IssuePath(7)) {
		t.Fatalf("warning must name the file: %q", *warns)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 7, KeyFact, "anything at all")}); !errcode.Is(err, errcode.CorruptState) {
		t.Fatalf("store into corrupt file: %v", err)
	}
	if data, _ := os.ReadFile(s.IssuePath(7)); !bytes.Equal(data, bad) {
		t.Fatal("corrupt issue file was rewritten")
	}
	if rows, _ := s.Search(ctx, Query{Text: "redis"}); len(rows) != 2 {
		t.Fatalf("entries of the corrupt file must stay searchable from the manifest: %+v", rows)
	}
}

// crashAfterIssueWrite stores a first decision on issue 5, then a second
// ("invalidation") whose write stops, as a crash would, after its issue
// file is written and before the manifest or index is.
func crashAfterIssueWrite(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Store(ctx, []Observation{obs("engineer", 5, Decision, "first decision about caching")}); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	s.afterIssueWrite = func() error { return crash }
	if _, err := s.Store(ctx, []Observation{obs("engineer", 5, Decision, "second decision about invalidation")}); !errors.Is(err, crash) {
		t.Fatalf("want simulated crash, got %v", err)
	}
	s.afterIssueWrite = nil
}

// A crash after the issue write and before the manifest write leaves a
// marker; the next access repairs the manifest.
func TestCrashBetweenIssueAndManifestWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk, _ := newTestStore(t)
	crashAfterIssueWrite(t, s)
	if rows, _ := s.Search(ctx, Query{Text: "invalidation"}); len(rows) != 0 {
		t.Fatalf("a live writer's marker must not be repaired yet: %+v", rows)
	}
	clk.Advance(3 * time.Second)
	rows, err := s.Search(ctx, Query{Text: "invalidation"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("not found from the issue file: %+v %v", rows, err)
	}
	// Readers never write: the next writer repairs.
	if m, _ := os.ReadDir(s.pendingDir()); len(m) != 1 {
		t.Fatalf("a reader repaired: %v", m)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 6, Decision, "a later write elsewhere")}); err != nil {
		t.Fatal(err)
	}
	if m, _ := os.ReadDir(s.pendingDir()); len(m) != 0 {
		t.Fatalf("marker left: %v", m)
	}
	checkAgree(t, s)
}

// checkAgree asserts the manifest, with the delta in place of the rows of
// the issues it holds, lists exactly the issue files' observations.
func checkAgree(t *testing.T, s *Store) int {
	t.Helper()
	data, err := os.ReadFile(s.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(s.ManifestPath(), data)
	if err != nil {
		t.Fatal(err)
	}
	var d *delta
	if gen, ok := s.baseGeneration(); ok {
		d = s.readDelta(gen)
	}
	held := func(issue int) bool {
		if d == nil {
			return false
		}
		_, ok := d.files[issue]
		return ok
	}
	inManifest := map[string]bool{}
	listed := 0
	for _, e := range m.Entries {
		if held(e.IssueNumber) {
			continue
		}
		if inManifest[e.ID] {
			t.Fatalf("duplicate manifest entry %s", e.ID)
		}
		inManifest[e.ID] = true
		listed++
	}
	inDelta := map[int][]memindex.Doc{}
	if d != nil {
		for i := 0; i < d.ix.Len(); i++ {
			doc := d.ix.Doc(i)
			inDelta[doc.Issue] = append(inDelta[doc.Issue], doc)
		}
	}
	issues, _ := s.Issues()
	n := 0
	for _, i := range issues {
		f, err := s.readIssue(i)
		if err != nil {
			t.Fatal(err)
		}
		if held(i) {
			docs := inDelta[i]
			if len(docs) != len(f.Observations) {
				t.Fatalf("the delta holds %d observations of issue %d, its file %d", len(docs), i, len(f.Observations))
			}
			for k, o := range f.Observations {
				e := o.Entry()
				if int(docs[k].Ref.Off) != k || !describes(docs[k], &e) {
					t.Fatalf("the delta's row %d of issue %d does not describe %s", k, i, o.ID)
				}
			}
			n += len(f.Observations)
			listed += len(docs)
			continue
		}
		for _, o := range f.Observations {
			n++
			if !inManifest[o.ID] {
				t.Fatalf("%s is in issue-%d.json but not in the manifest", o.ID, i)
			}
		}
	}
	if n != listed {
		t.Fatalf("manifest and delta list %d entries, issue files %d", listed, n)
	}
	return n
}

// TestConcurrentWriterProcesses: 8 OS processes x 50 stores into 4 issues.
func TestConcurrentWriterProcesses(t *testing.T) {
	t.Parallel()
	concurrentWriters(t, "TestConcurrentWriterProcesses", false)
}

// The same in a file base (no manifest.json, agentx-hook's default),
// its delta compacted every few writes.
func TestConcurrentWriterProcessesFileBase(t *testing.T) {
	t.Parallel()
	concurrentWriters(t, "TestConcurrentWriterProcessesFileBase", true)
}

func concurrentWriters(t *testing.T, name string, fileBase bool) {
	if dir := os.Getenv("AGENTX_MEMORY_WRITER_DIR"); dir != "" {
		writerProcess(t, dir, fileBase)
		return
	}
	dir := filepath.Join(t.TempDir(), "memory")
	var cmds []*exec.Cmd
	for p := 0; p < 8; p++ {
		cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$")
		cmd.Env = append(os.Environ(), "AGENTX_MEMORY_WRITER_DIR="+dir, "AGENTX_MEMORY_WRITER="+strconv.Itoa(p))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("writer output:\n%s", out.String())
			}
		})
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	s := New(dir, lock.New(lock.Options{}), clock.Real{})
	if fileBase {
		if _, err := os.Stat(s.ManifestPath()); !os.IsNotExist(err) {
			t.Fatalf("manifest.json in a file base: %v", err)
		}
		if st, err := s.Stats(context.Background()); err != nil || st.TotalObservations != 400 {
			t.Fatalf("stats: %+v %v", st, err)
		}
	} else if n := checkAgree(t, s); n != 400 {
		t.Fatalf("stored %d observations, want 400", n)
	}
	rows, err := s.Search(context.Background(), Query{Text: "writer", Limit: -1})
	if err != nil || len(rows) != 400 {
		t.Fatalf("search sees %d rows: %v", len(rows), err)
	}
}

func writerProcess(t *testing.T, dir string, fileBase bool) {
	p := os.Getenv("AGENTX_MEMORY_WRITER")
	s := New(dir, lock.New(lock.Options{Wait: 60 * time.Second}), clock.Real{})
	s.NoSync, s.FileBase = true, fileBase
	if fileBase {
		s.DeltaLimit = 16 // compactions of the file base among the writes
	}
	for i := 0; i < 50; i++ {
		o := obs("engineer", 1+i%4, KeyFact, fmt.Sprintf("writer %s observation %d", p, i))
		if _, err := s.Store(context.Background(), []Observation{o}); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
}

// Our rendering is byte-for-byte the reference layout (JSON.stringify
// with 2-space indent): files read and rewritten unchanged are unchanged.
func TestRenderingMatchesReferenceLayout(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/corpus/issue-*.json")
	files = append(files, "testdata/old/issue-29.json")
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseIssueFile(path, data)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := f.Marshal()
		if !bytes.Equal(out, data) {
			t.Errorf("%s: rewrite differs:\n%s", path, out)
		}
	}
	data, _ := os.ReadFile("testdata/old/manifest.json")
	m, err := ParseManifest("manifest.json", data)
	if err != nil {
		t.Fatal(err)
	}
	out, refs, _ := renderManifest(m, 1, referenceRows)
	_, prefixLen, ok := readStamp(out, int64(len(out)), true)
	if !ok || string(out[:prefixLen])+"\n}\n" != string(data) {
		t.Errorf("manifest rewrite differs:\n%s", out)
	}
	if e, err := entryAt(out, refs[0]); err != nil || e.ID != m.Entries[0].ID {
		t.Errorf("row reference: %+v %v", e, err)
	}
}

// The old implementation takes the manifest lock and then the issue lock
// inside it. We never hold one while waiting for the other, so a store
// racing it cannot deadlock.
func TestNoDeadlockAgainstOldLockOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 3, Decision, "seed")}); err != nil {
		t.Fatal(err)
	}
	old := lock.New(lock.Options{Wait: 10 * time.Second}) // another process
	mlk, err := old.Acquire(ctx, s.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	s.Locks = lock.New(lock.Options{Wait: 10 * time.Second, Clock: s.Clock})
	done := make(chan error, 1)
	go func() {
		_, err := s.Store(ctx, []Observation{obs("engineer", 3, Decision, "racing the old writer")})
		done <- err
	}()
	// Our writer has the issue lock at most briefly; the old one gets it
	// while still holding the manifest lock.
	ilk, err := old.Acquire(ctx, s.IssuePath(3))
	if err != nil {
		t.Fatalf("old writer could not take the issue lock inside the manifest lock: %v", err)
	}
	_ = ilk.Release()
	_ = mlk.Release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("store did not finish")
	}
	checkAgree(t, s)
}

func TestCompactArchivesOriginals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	stored, err := s.Store(ctx, []Observation{
		obs("engineer", 12, Decision, "Use Redis for the session store"),
		obs("engineer", 12, Error, "Redis timeout under load"),
		obs("reviewer", 12, KeyFact, "Sessions expire after 30 minutes"),
		obs("engineer", 13, KeyFact, "Unrelated issue stays as it is"),
	})
	if err != nil {
		t.Fatal(err)
	}
	kept, archived, err := s.Compact(ctx, 12, func(all []Observation) ([]Observation, []Observation, error) {
		sum := Observation{Agent: "agent-x", Category: CompactionSummary, Content: "Sessions: Redis store, 30 minute expiry, timeouts under load fixed"}
		return []Observation{all[2], sum}, all[:2], nil
	})
	if err != nil || archived != 2 || len(kept) != 2 || kept[1].ID == "" {
		t.Fatalf("compact: %+v %d %v", kept, archived, err)
	}
	data, err := os.ReadFile(s.ArchivePath(12))
	if err != nil {
		t.Fatal(err)
	}
	arch, err := ParseIssueFile(s.ArchivePath(12), data)
	if err != nil || len(arch.Observations) != 2 || arch.Observations[0].ID != stored[0].ID {
		t.Fatalf("archive: %+v %v", arch, err)
	}
	checkAgree(t, s)
	rows, _ := s.Search(ctx, Query{Issue: 12})
	if len(rows) != 2 {
		t.Fatalf("issue 12 after compaction: %+v", rows)
	}
	rows, _ = s.Search(ctx, Query{Text: "timeout"})
	if len(rows) != 1 || rows[0].Category != CompactionSummary {
		t.Fatalf("archived originals must leave the index: %+v", rows)
	}
}

func TestListsAndDateFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 1, Decision, "early decision")}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(48 * time.Hour)
	if _, err := s.Store(ctx, []Observation{obs("architect", 1, Decision, "late decision"), obs("engineer", 2, Error, "late error")}); err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.Search(ctx, Query{Agent: "engineer", Limit: -1}); len(rows) != 2 || rows[0].Summary != "late error" {
		t.Fatalf("by agent, newest first: %+v", rows)
	}
	if rows, _ := s.Search(ctx, Query{Category: Decision, Limit: -1}); len(rows) != 2 {
		t.Fatalf("by category: %+v", rows)
	}
	since := clk.Now().Add(-time.Hour)
	if rows, _ := s.Search(ctx, Query{Text: "decision", Since: since}); len(rows) != 1 || rows[0].Agent != "architect" {
		t.Fatalf("since: %+v", rows)
	}
	if rows, _ := s.Search(ctx, Query{Text: "decision", Until: since}); len(rows) != 1 || rows[0].Agent != "engineer" {
		t.Fatalf("until: %+v", rows)
	}
	if _, err := s.Store(ctx, []Observation{{Agent: "x", IssueNumber: 1, Category: "opinion", Content: "c"}}); !errcode.Is(err, errcode.InvalidInput) {
		t.Fatalf("unknown category: %v", err)
	}
}

// Keys other tools add to the manifest (top level and per entry) survive
// both the append path and the re-render path.
func TestManifestExtraKeysSurviveRewrites(t *testing.T) {
	t.Parallel()
	for _, reference := range []bool{true, false} {
		t.Run(fmt.Sprintf("reference=%v", reference), func(t *testing.T) {
			t.Parallel()
			testManifestExtraKeysSurviveRewrites(t, reference)
		})
	}
}

func testManifestExtraKeysSurviveRewrites(t *testing.T, reference bool) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	s.ReferenceManifest = reference
	copyOld(t, s)
	data, _ := os.ReadFile(s.ManifestPath())
	data = bytes.Replace(data, []byte(`"timestamp": "2026-02-27T10:00:00.000Z"
    }`), []byte(`"timestamp": "2026-02-27T10:00:00.000Z",
      "pinned": true
    }`), 1)
	data = bytes.Replace(data, []byte("\n  ]\n}\n"), []byte("\n  ],\n  \"note\": {\"by\": \"powershell\"}\n}\n"), 1)
	if err := os.WriteFile(s.ManifestPath(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	added, err := s.Store(ctx, []Observation{obs("engineer", 29, KeyFact, "one more fact"), obs("engineer", 30, KeyFact, "other issue")})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Remove(ctx, added[1].ID); !ok || err != nil {
		t.Fatal(ok, err)
	}
	out, _ := os.ReadFile(s.ManifestPath())
	pinned := `"pinned": true`
	if !reference {
		pinned = `"pinned":true`
	}
	if !bytes.Contains(out, []byte(pinned)) || !bytes.Contains(out, []byte("\"note\": {\n    \"by\": \"powershell\"\n  }")) {
		t.Fatalf("extra keys lost:\n%s", out)
	}
	checkAgree(t, s)
	if rows, _ := s.Search(ctx, Query{Text: "fact leveldb"}); len(rows) != 2 {
		t.Fatalf("search after rewrites: %+v", rows)
	}
}

// A marker whose writer process is gone is repaired at once, without
// waiting for it to age.
func TestMarkerOfDeadWriterIsRepairedAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 5, Decision, "first decision about caching")}); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	s.afterIssueWrite = func() error { return crash }
	if _, err := s.Store(ctx, []Observation{obs("engineer", 5, Decision, "second decision about invalidation")}); !errors.Is(err, crash) {
		t.Fatal(err)
	}
	s.afterIssueWrite = nil
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	markers, _ := filepath.Glob(filepath.Join(s.pendingDir(), "issue-5-*"))
	if len(markers) != 1 {
		t.Fatalf("markers: %v", markers)
	}
	host, _ := os.Hostname()
	content := fmt.Sprintf("%s\n%d %s\n", clock.Format(s.Clock.Now()), dead.Process.Pid, host)
	if err := os.WriteFile(markers[0], []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.Search(ctx, Query{Text: "invalidation"}); len(rows) != 1 {
		t.Fatalf("not repaired at once: %+v", rows)
	}
}

// Compaction plans on a read taken without the lock. An observation
// removed meanwhile (a person deleting a leaked secret with `memory
// remove`) must not come back with the plan, nor live on inside a new
// summary; recall counts added meanwhile must not be lost.
func TestCompactDoesNotResurrectWhatWasRemovedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	stored, err := s.Store(ctx, []Observation{
		obs("engineer", 12, Decision, "Use Redis for the session store"),
		obs("engineer", 12, KeyFact, "The staging token is hunter2"),
		obs("reviewer", 12, KeyFact, "Sessions expire after 30 minutes"),
	})
	if err != nil {
		t.Fatal(err)
	}
	secret, counted := stored[1].ID, stored[2].ID
	// Keep everything: the plan only races the removal.
	_, _, err = s.Compact(ctx, 12, func(all []Observation) ([]Observation, []Observation, error) {
		if _, err := s.Remove(ctx, secret); err != nil {
			t.Fatal(err)
		}
		if err := s.AddRecallCounts(ctx, map[string]int{counted: 3}); err != nil {
			t.Fatal(err)
		}
		return all, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetByIssue(ctx, 12)
	for _, o := range got {
		if o.ID == secret {
			t.Fatal("compaction brought back an observation removed while it planned")
		}
		if o.ID == counted && o.RecallCount != 3 {
			t.Fatalf("recall count %d, want 3: compaction lost the increments made while it planned", o.RecallCount)
		}
	}
	// Merge the removed one into a summary: the summary must not land.
	stored, err = s.Store(ctx, []Observation{obs("engineer", 12, KeyFact, "The prod token is swordfish")})
	if err != nil {
		t.Fatal(err)
	}
	secret = stored[0].ID
	_, _, err = s.Compact(ctx, 12, func(all []Observation) ([]Observation, []Observation, error) {
		if _, err := s.Remove(ctx, secret); err != nil {
			t.Fatal(err)
		}
		var keep, arch []Observation
		merged := ""
		for _, o := range all {
			if o.Category == KeyFact {
				arch = append(arch, o)
				merged += o.Content + "; "
			} else {
				keep = append(keep, o)
			}
		}
		keep = append(keep, Observation{Agent: "agent-x", Category: CompactionSummary, Content: merged})
		return keep, arch, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = s.GetByIssue(ctx, 12)
	for _, o := range got {
		if strings.Contains(o.Content, "swordfish") {
			t.Fatalf("the removed observation lives on in %s: %q", o.ID, o.Content)
		}
	}
	checkAgree(t, s)
}
