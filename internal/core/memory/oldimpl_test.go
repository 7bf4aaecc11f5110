// Living beside the old implementation: its files load, search and
// survive our rewrite; our rendering is its layout byte for byte; keys
// other tools add to the manifest survive; and a store racing its lock
// order cannot deadlock.

package memory

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/testenv"
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
	case <-time.After(testenv.HangGuard):
		t.Fatal("store did not finish")
	}
	checkAgree(t, s)
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
