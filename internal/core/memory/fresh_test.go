package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// freshStore is a store with issues 7 and 8 whose first search recorded
// the freshness gate, and a check that the next search would take the
// gate's answer instead of stat'ing the issue files (so each test below
// shows the change it makes is what turns the gate off).
// layout "base" puts the observations in the base (manifest.json and
// search.idx, rows read from the manifest), "delta" in the delta (rows
// read from their issue files), "file base" in a base without a manifest
// (filebase.go: rows read from the issue files, agentx-hook's default).
func freshStore(t *testing.T, layout string) (*Store, func(word string) int) {
	t.Helper()
	s := layoutStore(t, layout)
	found := storeRedisAndExport(t, s)
	if found("redis") != 1 || found("export") != 1 {
		t.Fatal("before the change")
	}
	gen, ok := s.baseGeneration()
	if !ok {
		t.Fatal("no base")
	}
	if _, hit, _ := s.checkFresh(gen, nil); !hit {
		t.Fatal("the search did not record the freshness gate")
	}
	return s, found
}

// layoutStore is a test store of the given layout (freshStore's) that
// records the freshness gate at once (no racy margin).
func layoutStore(t *testing.T, layout string) *Store {
	t.Helper()
	s, _, _ := newTestStore(t)
	s.freshMargin = -1
	switch layout {
	case "base":
		s.DeltaLimit = -1
	case "file base":
		s.FileBase, s.DeltaLimit = true, -1
	case "file base, delta": // agentx-hook's default
		s.FileBase = true
	}
	return s
}

// bothLayouts runs fn on a store of each layout.
func bothLayouts(t *testing.T, fn func(t *testing.T, s *Store, found func(string) int)) {
	eachLayout(t, []string{"base", "delta", "file base"}, func(t *testing.T, name string) {
		s, found := freshStore(t, name)
		fn(t, s, found)
	})
}

// eachLayout runs fn as a parallel subtest for each named store layout.
func eachLayout(t *testing.T, names []string, fn func(t *testing.T, name string)) {
	t.Parallel()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, name)
		})
	}
}

// copyIssueAs writes a new issue file to (a merge, another clone's
// checkout): issue file from's text, renumbered, with old replaced by new.
func copyIssueAs(t *testing.T, s *Store, from, to int, old, new string) {
	t.Helper()
	data, err := os.ReadFile(s.IssuePath(from))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), old, new)
	text = strings.ReplaceAll(text, fmt.Sprintf(`"issueNumber": %d`, from), fmt.Sprintf(`"issueNumber": %d`, to))
	if err := os.WriteFile(s.IssuePath(to), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sameSizeEdit rewrites issue file n in place (truncate and write, as an
// editor or the reference tools do), one word for another of its length.
func sameSizeEdit(t *testing.T, s *Store, n int, from, to string) {
	t.Helper()
	path := s.IssuePath(n)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.ReplaceAll(string(data), from, to)
	if len(edited) != len(data) || edited == string(data) {
		t.Fatal("not a same-size edit")
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rewriteManifest writes manifest.json as the reference tools do after an
// issue file: in place, or, in a store without one (a file base), anew.
func rewriteManifest(t *testing.T, s *Store) {
	t.Helper()
	data, err := os.ReadFile(s.ManifestPath())
	if os.IsNotExist(err) {
		data, err = []byte(`{"version": 1, "entries": []}`+"\n"), nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.ManifestPath(), data, 0o644); err != nil { // in place
		t.Fatal(err)
	}
}

// The reference tools rewrite an issue file in place, same size, within
// the same second, then rewrite manifest.json in place: the manifest's
// times turn the gate off and the next search sees the edit.
func TestFreshGateSeesInPlaceRewriteWithManifest(t *testing.T) {
	bothLayouts(t, func(t *testing.T, s *Store, found func(string) int) {
		sameSizeEdit(t, s, 7, "redis", "mysql")
		rewriteManifest(t, s)
		if found("mysql") != 1 || found("redis") != 0 {
			t.Fatalf("after the edit: mysql %d, redis %d", found("mysql"), found("redis"))
		}
	})
}

// An issue file replaced by a rename (agentx's writers, most editors,
// git) changes the directory: the next search sees it.
func TestFreshGateSeesRenameIntoPlace(t *testing.T) {
	bothLayouts(t, func(t *testing.T, s *Store, found func(string) int) {
		path := s.IssuePath(7)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(s.Dir, ".issue-7.json.tmp")
		if err := os.WriteFile(tmp, []byte(strings.ReplaceAll(string(data), "redis", "mysql")), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		if found("mysql") != 1 || found("redis") != 0 {
			t.Fatalf("after the rename: mysql %d, redis %d", found("mysql"), found("redis"))
		}
	})
}

// A deleted issue file (git checkout, git rm) is no longer searched.
func TestFreshGateSeesDelete(t *testing.T) {
	bothLayouts(t, func(t *testing.T, s *Store, found func(string) int) {
		if err := os.Remove(s.IssuePath(8)); err != nil {
			t.Fatal(err)
		}
		if found("export") != 0 || found("redis") != 1 {
			t.Fatalf("after the delete: export %d, redis %d", found("export"), found("redis"))
		}
	})
}

// A new issue file (a merge, another clone's checkout) is searched.
func TestFreshGateSeesNewFile(t *testing.T) {
	bothLayouts(t, func(t *testing.T, s *Store, found func(string) int) {
		copyIssueAs(t, s, 8, 9, "export runs nightly", "backup runs hourly")
		if found("backup") != 1 {
			t.Fatalf("after the new file: backup %d", found("backup"))
		}
	})
}

// A bare in-place rewrite (no rename, no manifest write) is the gate's
// documented limit: searches within freshAge of the record may still
// answer from the index; once the record is older, the next search stats
// every file again and sees it. Any write to the store sees it at once.
func TestFreshGateBareInPlaceRewriteSeenAfterBound(t *testing.T) {
	bothLayouts(t, func(t *testing.T, s *Store, found func(string) int) {
		sameSizeEdit(t, s, 7, "redis", "mysql")
		if found("redis") != 1 {
			t.Fatal("the gate did not answer: this test no longer shows its bound")
		}
		r, ok := s.readFresh()
		if !ok {
			t.Fatal("no record")
		}
		r.at -= int64(freshAge + time.Second)
		if err := os.WriteFile(s.freshPath(), r.encode(), 0o644); err != nil {
			t.Fatal(err)
		}
		if found("mysql") != 1 || found("redis") != 0 {
			t.Fatalf("after the bound: mysql %d, redis %d", found("mysql"), found("redis"))
		}
	})
}

// What a sweep found changed behind the index is recorded too: the next
// search indexes those files again from the gate's answer, without the
// sweep, and never answers from the stale index.
func TestFreshGateKeepsChangedIssues(t *testing.T) {
	bothLayouts(t, func(t *testing.T, s *Store, found func(string) int) {
		sameSizeEdit(t, s, 7, "redis", "mysql")
		rewriteManifest(t, s)
		for range 3 {
			if found("mysql") != 1 || found("redis") != 0 {
				t.Fatalf("mysql %d, redis %d", found("mysql"), found("redis"))
			}
		}
		gen, _ := s.baseGeneration()
		if changed, hit, _ := s.checkFresh(gen, nil); !hit || len(changed) != 1 || changed[0] != 7 {
			t.Fatalf("gate: hit %v, changed %v", hit, changed)
		}
	})
}

// A record taken within the racy margin of a change is not written: a
// second change in the same clock tick would stat the same.
func TestFreshGateNotRecordedWhenRacy(t *testing.T) {
	bothLayouts(t, func(t *testing.T, s *Store, found func(string) int) {
		s.freshMargin = time.Hour // every change is within it
		if err := os.Remove(s.freshPath()); err != nil {
			t.Fatal(err)
		}
		found("redis")
		if _, err := os.Stat(s.freshPath()); err == nil {
			t.Fatal("a racy record was written")
		}
	})
}
