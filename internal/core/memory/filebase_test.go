package memory

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"
	"time"
)

// fileBaseStore is a test store that writes the file base.
func fileBaseStore(t *testing.T) (*Store, *[]string) {
	t.Helper()
	s, _, warns := newTestStore(t)
	s.FileBase = true
	return s, warns
}

func searchIDs(t *testing.T, s *Store, text string) []string {
	t.Helper()
	rows, err := s.Search(context.Background(), Query{Text: text, Limit: -1})
	if err != nil {
		t.Fatalf("search %q: %v", text, err)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// The file base (issue 35): no manifest.json, the index's rows read from
// the issue files, through writes to the delta, a compaction and a
// rebuild; a fresh reader takes the fast path.
func TestFileBaseWritesNoManifest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := fileBaseStore(t)
	if _, err := s.Store(ctx, []Observation{
		obs("engineer", 7, Decision, "Sessions are kept in redis with a sliding expiry"),
		obs("architect", 8, KeyFact, "The export runs nightly as parquet"),
	}); err != nil {
		t.Fatal(err)
	}
	s.DeltaLimit = 1 // the next write compacts
	if _, err := s.Store(ctx, []Observation{obs("engineer", 7, Error, "redis refused connections during the export")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.DeltaPath()); !os.IsNotExist(err) {
		t.Fatalf("the write past the delta's limit did not compact it: %v", err)
	}
	s.DeltaLimit = 0
	if _, err := s.Store(ctx, []Observation{obs("tester", 9, KeyFact, "The redis export test runs last")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.DeltaPath()); err != nil {
		t.Fatalf("a write under the limit goes to the delta: %v", err)
	}
	for _, when := range []string{"after writes", "after a rebuild"} {
		if _, err := os.Stat(s.ManifestPath()); !os.IsNotExist(err) {
			t.Fatalf("%s: manifest.json is there (%v)", when, err)
		}
		fresh := New(s.Dir, s.Locks, s.Clock)
		v := fresh.openFast()
		if v == nil {
			t.Fatalf("%s: the file base is not read on the fast path", when)
		}
		v.close()
		if ids := searchIDs(t, fresh, "redis"); len(ids) != 3 {
			t.Fatalf("%s: search redis: %v", when, ids)
		}
		if st, err := fresh.Stats(ctx); err != nil || st.TotalObservations != 4 {
			t.Fatalf("%s: stats %+v %v", when, st, err)
		}
		if _, err := s.Rebuild(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// A recall count folded into an issue file shifts the objects after it
// (the file is restamped, not indexed again): the rows are then found by
// their position, on the fast path, the same rows.
func TestFileBaseRowsSurviveRecallCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := fileBaseStore(t)
	stored, err := s.Store(ctx, []Observation{
		obs("engineer", 7, Decision, "Sessions are kept in redis with a sliding expiry"),
		obs("engineer", 7, KeyFact, "The export runs nightly as parquet"),
		obs("engineer", 7, KeyFact, "The parquet export is kept a week"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rebuild(ctx); err != nil { // into the base, with offsets
		t.Fatal(err)
	}
	before := searchIDs(t, s, "parquet")
	if err := s.AddRecallCounts(ctx, map[string]int{stored[0].ID: 12345}); err != nil {
		t.Fatal(err)
	}
	fresh := New(s.Dir, s.Locks, s.Clock)
	v := fresh.openFast()
	if v == nil {
		t.Fatal("after the recall count the file base is not read on the fast path")
	}
	v.close()
	if after := searchIDs(t, fresh, "parquet"); !slices.Equal(after, before) || len(after) != 2 {
		t.Fatalf("rows after the recall count: %v, before %v", after, before)
	}
}

// A store whose base is manifest.json (an older agentx's, or "delta"'s)
// switched to the file base keeps working: writes go to the delta over the
// manifest base, and the next compaction or rebuild converts it, removing
// the manifest only agentx wrote.
func TestManifestBaseConvertsToAFileBase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{
		obs("engineer", 7, Decision, "Sessions are kept in redis with a sliding expiry"),
		obs("architect", 8, KeyFact, "The redis cluster has three nodes"),
	}); err != nil {
		t.Fatal(err)
	}
	if !s.ManifestBase() {
		t.Fatal("the default Store writes a manifest base")
	}
	s.FileBase = true
	if _, err := s.Store(ctx, []Observation{obs("tester", 9, KeyFact, "redis is flushed before each test")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.ManifestPath()); err != nil {
		t.Fatalf("a write to the delta converted the base: %v", err)
	}
	if ids := searchIDs(t, s, "redis"); len(ids) != 3 {
		t.Fatalf("over the manifest base: %v", ids)
	}
	gen0, _ := s.baseGeneration()
	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	// A conversion never reuses a generation (a record or delta of the
	// other base would pass for this one's).
	gen1, ok := s.baseGeneration()
	if !ok || gen1 <= gen0 {
		t.Fatalf("generation %d after the conversion, %d before", gen1, gen0)
	}
	if _, err := os.Stat(s.ManifestPath()); !os.IsNotExist(err) {
		t.Fatalf("agentx's own manifest was not removed: %v", err)
	}
	if s.ManifestBase() {
		t.Fatal("the rebuild left a manifest base")
	}
	if ids := searchIDs(t, s, "redis"); len(ids) != 3 {
		t.Fatalf("over the file base: %v", ids)
	}
	// And back: a store set to keep a manifest writes one at its next
	// full write.
	s.FileBase, s.DeltaLimit = false, -1
	if _, err := s.Store(ctx, []Observation{obs("tester", 9, Error, "redis timed out once")}); err != nil {
		t.Fatal(err)
	}
	if gen2, ok := s.baseGeneration(); !ok || gen2 <= gen1 {
		t.Fatalf("generation %d after the conversion back, %d before", gen2, gen1)
	}
	data, err := os.ReadFile(s.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(s.ManifestPath(), data)
	if err != nil || len(m.Entries) != 4 || !s.ManifestBase() {
		t.Fatalf("back to a manifest: %v entries, %v, manifest base %v", len(m.Entries), err, s.ManifestBase())
	}
}

// A file base whose record of the issue files is lost (a crash between
// the index and its record) is not trusted: searches read the issue files,
// and the next write reconciles.
func TestFileBaseWithoutItsRecordIsNotTrusted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := fileBaseStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 7, Decision, "Sessions are kept in redis")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.FilesPath()); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, s.Dir, map[string]string{"issue-7.json": `{"version":1,"issueNumber":7,"observations":[{"id":"obs-x-7-1-aaaaaa","agent":"engineer","issueNumber":7,"category":"decision","content":"Sessions are kept in memcached","summary":"Sessions are kept in memcached","tokens":8,"timestamp":"2026-03-01T17:00:00.000Z"}]}`})
	if v := s.openFast(); v != nil {
		v.close()
		t.Fatal("a file base without its record was read on the fast path")
	}
	if ids := searchIDs(t, s, "memcached"); len(ids) != 1 {
		t.Fatalf("the issue file as it is now: %v", ids)
	}
	if ids := searchIDs(t, s, "redis"); len(ids) != 0 {
		t.Fatalf("the index's old text answered: %v", ids)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 8, KeyFact, "The export runs nightly")}); err != nil {
		t.Fatal(err)
	}
	if v := s.openFast(); v == nil {
		t.Fatal("the next write did not restore the fast path")
	} else {
		v.close()
	}
}

// A crash between the issue write and the index write (step 1 and 2 of
// the write protocol) in a file base: a reader finds the observation from
// the issue file once the marker is stale, writes nothing, and the next
// writer repairs the index.
func TestFileBaseCrashBetweenIssueAndIndexWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk, _ := newTestStore(t)
	s.FileBase = true
	crashAfterIssueWrite(t, s)
	if ids := searchIDs(t, s, "invalidation"); len(ids) != 0 {
		t.Fatalf("a live writer's marker must not be repaired yet: %v", ids)
	}
	clk.Advance(3 * time.Second)
	if ids := searchIDs(t, s, "invalidation"); len(ids) != 1 {
		t.Fatalf("not found from the issue file: %v", ids)
	}
	if m, _ := os.ReadDir(s.pendingDir()); len(m) != 1 {
		t.Fatalf("a reader repaired: %v", m)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 6, Decision, "a later write elsewhere about invalidation")}); err != nil {
		t.Fatal(err)
	}
	if m, _ := os.ReadDir(s.pendingDir()); len(m) != 0 {
		t.Fatalf("marker left: %v", m)
	}
	if v := s.openFast(); v == nil {
		t.Fatal("the repaired file base is not read on the fast path")
	} else {
		v.close()
	}
	if ids := searchIDs(t, s, "invalidation"); len(ids) != 2 {
		t.Fatalf("after the repair: %v", ids)
	}
	if _, err := os.Stat(s.ManifestPath()); !os.IsNotExist(err) {
		t.Fatalf("manifest.json: %v", err)
	}
}

// An issue file changed behind a file base so that its size and time look
// unchanged (a tool that restores the time): the rows read through the
// index no longer say what it says, and the search answers from the files
// instead of failing.
func TestFileBaseStaleRowsNeverFailASearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := fileBaseStore(t)
	if _, err := s.Store(ctx, []Observation{
		obs("engineer", 7, Decision, "Sessions are kept in redis with a sliding expiry"),
		obs("architect", 7, KeyFact, "The redis cluster has three nodes"),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	path := s.IssuePath(7)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The two observations' agents swapped, same size: the rows at their
	// offsets and positions no longer match the index.
	swapped := bytes.ReplaceAll(data, []byte(`"engineer"`), []byte(`"xrchitect"`))
	swapped = bytes.ReplaceAll(swapped, []byte(`"architect"`), []byte(`"engineer"`))
	swapped = bytes.ReplaceAll(swapped, []byte(`"xrchitect"`), []byte(`"architect"`))
	if len(swapped) != len(data) || bytes.Equal(swapped, data) {
		t.Fatal("the edit must keep the size and change the bytes")
	}
	if err := os.WriteFile(path, swapped, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	rows, err := New(s.Dir, s.Locks, s.Clock).Search(ctx, Query{Text: "sliding expiry"})
	if err != nil || len(rows) != 1 || rows[0].Agent != "architect" {
		t.Fatalf("%+v %v", rows, err)
	}
}

// A manifest that carries our stamp but was changed since (another tool
// kept our key and head and edited a row) is not agentx's own any more:
// the file base leaves it where it is.
func TestFileBaseKeepsAManifestAnotherToolChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{
		obs("engineer", 7, Decision, "Sessions are kept in redis with a sliding expiry"),
		obs("architect", 8, KeyFact, "The export runs nightly as parquet"),
	}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte("sliding"), []byte("rolling"), 1)
	if bytes.Equal(edited, data) || !bytes.Equal(edited[:128], data[:128]) {
		t.Fatalf("the edit must change a row and keep the head:\n%s", data)
	}
	writeFiles(t, s.Dir, map[string]string{"manifest.json": string(edited)})
	s.FileBase = true
	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if now, err := os.ReadFile(s.ManifestPath()); err != nil || !bytes.Equal(now, edited) {
		t.Fatalf("the changed manifest was not kept as it was: %v", err)
	}
}
