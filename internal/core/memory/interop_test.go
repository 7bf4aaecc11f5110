package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// snapshot records the bytes and modification time of every file under
// root, so a test can prove a reader changed nothing.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = info.ModTime().Format(time.RFC3339Nano) + "\x00" + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed %s", what, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s created %s", what, p)
		}
	}
}

const issue0File = `{
  "version": 1,
  "issueNumber": 0,
  "updatedAt": "2026-02-27T10:00:00.000Z",
  "observations": [
    {
      "id": "obs-engineer-0-1709035200000-a1b2c3",
      "agent": "engineer",
      "issueNumber": 0,
      "category": "decision",
      "content": "Chose per-issue JSON files for chat storage",
      "summary": "Chose per-issue JSON files for chat storage",
      "tokens": 11,
      "timestamp": "2026-02-27T10:00:00.000Z",
      "sessionId": "s1"
    }
  ]
}
`

const issue0Manifest = `{
  "version": 1,
  "updatedAt": "2026-02-27T10:00:00.000Z",
  "entries": [
    {
      "id": "obs-engineer-0-1709035200000-a1b2c3",
      "agent": "engineer",
      "issueNumber": 0,
      "category": "decision",
      "summary": "Chose per-issue JSON files for chat storage",
      "tokens": 11,
      "timestamp": "2026-02-27T10:00:00.000Z"
    }
  ]
}
`

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The old chat integration filed observations under issue 0: they are
// searched, counted and fetched, and a read never drops them.
func TestIssueZeroOfTheOldToolIsRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	writeFiles(t, s.Dir, map[string]string{"issue-0.json": issue0File, "manifest.json": issue0Manifest})
	st, err := s.Stats(ctx)
	if err != nil || st.TotalObservations != 1 {
		t.Fatalf("stats: %+v %v", st, err)
	}
	rows, err := s.Search(ctx, Query{Text: "chat storage"})
	if err != nil || len(rows) != 1 || rows[0].IssueNumber != 0 {
		t.Fatalf("search: %+v %v", rows, err)
	}
	o, err := s.GetByID(ctx, "obs-engineer-0-1709035200000-a1b2c3")
	if err != nil || o.Content == "" {
		t.Fatalf("get: %+v %v", o, err)
	}
	if m, _ := os.ReadFile(s.ManifestPath()); string(m) != issue0Manifest {
		t.Fatalf("manifest rewritten by readers:\n%s", m)
	}
	// A writer keeps issue 0's entries too; new records still need 1..10^9.
	if _, err := s.Store(ctx, []Observation{obs("engineer", 5, KeyFact, "Another fact worth keeping")}); err != nil {
		t.Fatal(err)
	}
	if m, _ := os.ReadFile(s.ManifestPath()); !bytes.Contains(m, []byte("obs-engineer-0-1709035200000-a1b2c3")) {
		t.Fatalf("a write dropped issue 0's entry:\n%s", m)
	}
	if _, err := s.Store(ctx, []Observation{obs("engineer", 0, KeyFact, "A new fact under issue zero")}); err == nil {
		t.Fatal("a new observation under issue 0 was accepted")
	}
}

// Readers never write: stats, search and get over a manifest that
// disagrees with the issue files (and with no index at all) leave every
// byte and every modification time as they were, report the
// disagreement, and answer from the issue files.
func TestReadersNeverWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, warns := newTestStore(t)
	copyOld(t, s)
	// The manifest misses an observation the issue file has.
	f, err := s.readIssue(29)
	if err != nil {
		t.Fatal(err)
	}
	extra := f.Observations[0]
	extra.ID, extra.Content, extra.Summary = "obs-engineer-29-1709035299999-zzzzzz", "Zebra crossings are modelled as graphs", "Zebra crossings are modelled as graphs"
	f.Observations = append(f.Observations, extra)
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.IssuePath(29), data, 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(s.Dir)
	before := snapshot(t, root)
	time.Sleep(20 * time.Millisecond) // a rewrite would show in the mtimes
	if _, err := s.Stats(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Search(ctx, Query{Text: "zebra crossings"})
	if err != nil || len(rows) != 1 || rows[0].ID != extra.ID {
		t.Fatalf("search did not use the issue files: %+v %v", rows, err)
	}
	if _, err := s.GetByID(ctx, extra.ID); err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, "a reader", before, snapshot(t, root))
	if len(*warns) == 0 || !strings.Contains(strings.Join(*warns, "\n"), "memory rebuild") {
		t.Fatalf("the disagreement was not reported: %q", *warns)
	}
	// A writer repairs it.
	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	*warns = nil
	if _, err := s.Search(ctx, Query{Text: "zebra"}); err != nil || len(*warns) != 0 {
		t.Fatalf("after rebuild: %v %q", err, *warns)
	}
}

// The old store rewrote manifest.json keeping our stamp key at its end
// and, by chance, the same size: the index must not be trusted on the
// stamp alone. Every writer changes updatedAt, which the stamp covers.
func TestIndexIsNotTrustedAfterAnotherWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{
		obs("engineer", 7, Decision, "Use Redis for sessions and caching"),
		obs("engineer", 7, KeyFact, "Tokens expire after fifteen minutes"),
	}); err != nil {
		t.Fatal(err)
	}
	m, _ := os.ReadFile(s.ManifestPath())
	// The other writer replaced the first observation by one of the same
	// length and set updatedAt, keeping our stamp verbatim.
	f, _ := s.readIssue(7)
	old := f.Observations[0]
	repl := old
	repl.ID = old.ID[:len(old.ID)-6] + "qqqqqq"
	repl.Content = "Use Kafka for sessions and caching"
	repl.Summary = repl.Content
	repl.Category = Error
	f.Observations[0] = repl
	data, _ := f.Marshal()
	writeFiles(t, s.Dir, map[string]string{"issue-7.json": string(data)})
	nm := bytes.Replace(m, []byte(old.ID), []byte(repl.ID), 1)
	nm = bytes.Replace(nm, []byte(`"Use Redis for sessions and caching"`), []byte(`"Use Kafka for sessions and caching"`), 1)
	nm = bytes.Replace(nm, []byte(`"category": "decision"`), []byte(`"category": "error"   `), 1)
	nm = bytes.Replace(nm, []byte(`"updatedAt": "2026-03-01T17:00:00.000Z"`), []byte(`"updatedAt": "2026-03-01T17:00:09.999Z"`), 1)
	if len(nm) != len(m) || bytes.Equal(nm, m) {
		t.Fatalf("fixture: %d vs %d bytes", len(nm), len(m))
	}
	writeFiles(t, s.Dir, map[string]string{"manifest.json": string(nm)})
	rows, err := s.Search(ctx, Query{Text: "kafka"})
	if err != nil || len(rows) != 1 || rows[0].ID != repl.ID {
		t.Fatalf("search after another writer: %+v %v", rows, err)
	}
	rows, err = s.Search(ctx, Query{Text: "redis"})
	if err != nil || len(rows) != 0 {
		t.Fatalf("search returned a replaced observation: %+v %v", rows, err)
	}
}

// An index whose rows no longer decode (the manifest was cut short under
// it) never fails a search: it falls back to the files.
func TestStaleIndexNeverFailsASearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	if _, err := s.Store(ctx, []Observation{obs("engineer", 7, Decision, "Use Redis for sessions and caching")}); err != nil {
		t.Fatal(err)
	}
	m, _ := os.ReadFile(s.ManifestPath())
	// Same size, same stamp, same head: the row bytes are garbage.
	i := bytes.Index(m, []byte(`"id":`))
	copy(m[i:], bytes.Repeat([]byte(" "), 40))
	writeFiles(t, s.Dir, map[string]string{"manifest.json": string(m)})
	rows, err := s.Search(ctx, Query{Text: "redis"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%+v %v", rows, err)
	}
}

// No session known: sessionId is omitted, not written as "". A value
// another tool wrote ("" or null) is kept as it was.
func TestSessionIDOmittedWhenUnknown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	o := obs("engineer", 3, KeyFact, "No session is known for this one")
	o.SessionID = ""
	if _, err := s.Store(ctx, []Observation{o}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.IssuePath(3))
	if bytes.Contains(data, []byte("sessionId")) {
		t.Fatalf("sessionId written without a session:\n%s", data)
	}
	old := strings.Replace(issue0File, `"sessionId": "s1"`, `"sessionId": null`, 1)
	writeFiles(t, s.Dir, map[string]string{"issue-4.json": strings.ReplaceAll(old, `"issueNumber": 0`, `"issueNumber": 4`)})
	if _, err := s.Store(ctx, []Observation{obs("engineer", 4, KeyFact, "A second fact for issue four")}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(s.IssuePath(4))
	if !bytes.Contains(data, []byte(`"sessionId": null`)) {
		t.Fatalf("null sessionId not kept:\n%s", data)
	}
}

// An empty store has no oldest or newest observation: null, not "".
func TestEmptyStatsTimestampsAreNull(t *testing.T) {
	t.Parallel()
	s, _, _ := newTestStore(t)
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"oldestTimestamp":null`, `"newestTimestamp":null`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("want %s in %s", want, data)
		}
	}
}
