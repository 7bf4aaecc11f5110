package memory

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// overlayStore is a store of the given layout (as freshStore's) with
// issues 7 and 8, that records the freshness gate and the overlay at once
// (no racy margin), and a search that reports its rows and whether it
// took an overlay (nil: no file changed behind the index).
func overlayStore(t *testing.T, layout string) (*Store, func(word string) ([]Row, *bool)) {
	t.Helper()
	s := layoutStore(t, layout)
	storeRedisAndExport(t, s)
	var took *bool
	s.onOverlay = func(reused bool) { took = &reused }
	return s, func(word string) ([]Row, *bool) {
		t.Helper()
		took = nil
		rows, err := s.Search(context.Background(), Query{Text: word})
		if err != nil {
			t.Fatal(err)
		}
		return rows, took
	}
}

func eachOverlayLayout(t *testing.T, fn func(t *testing.T, s *Store, search func(string) ([]Row, *bool))) {
	eachLayout(t, []string{"base", "delta", "file base", "file base, delta"}, func(t *testing.T, name string) {
		s, search := overlayStore(t, name)
		fn(t, s, search)
	})
}

// renameEdit replaces issue file n by a renamed new file (sed -i, most
// editors) with from replaced by to.
func renameEdit(t *testing.T, s *Store, n int, from, to string) {
	t.Helper()
	path := s.IssuePath(n)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.ReplaceAll(string(data), from, to)
	if edited == string(data) {
		t.Fatal("nothing edited")
	}
	tmp := filepath.Join(s.Dir, ".edit.tmp")
	if err := os.WriteFile(tmp, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func tookOverlay(took *bool) string {
	switch {
	case took == nil:
		return "nothing changed"
	case *took:
		return "overlay taken"
	}
	return "indexed"
}

// The search after a foreign edit indexes the edited file and keeps that
// work; the next takes it, with the same rows in the same order with the
// same scores, and without indexing the file again.
func TestOverlayKeepsTheIndexingOfAForeignEdit(t *testing.T) {
	eachOverlayLayout(t, func(t *testing.T, s *Store, search func(string) ([]Row, *bool)) {
		renameEdit(t, s, 7, "Sessions are kept in redis", "Sessions are kept in mysql, not redis,")
		first, took := search("mysql redis sessions")
		if tookOverlay(took) != "indexed" || len(first) != 1 || !strings.Contains(first[0].Summary, "mysql") {
			t.Fatalf("first search: %s, %+v", tookOverlay(took), first)
		}
		if _, err := os.Stat(s.overlayPath()); err != nil {
			t.Fatalf("no overlay kept: %v", err)
		}
		for _, q := range []string{"mysql redis sessions", "export nightly", "redis"} {
			want, err := s.openFilesSearch(q)
			if err != nil {
				t.Fatal(err)
			}
			got, took := search(q)
			if tookOverlay(took) != "overlay taken" {
				t.Fatalf("%q: %s", q, tookOverlay(took))
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q through the overlay:\n%+v\nindexed again:\n%+v", q, got, want)
			}
		}
	})
}

// openFilesSearch searches with the changed files indexed again (no
// overlay), the reference the overlay must equal.
func (s *Store) openFilesSearch(q string) ([]Row, error) {
	hook := s.onOverlay
	s.onOverlay = nil
	defer func() { s.onOverlay = hook }()
	path := s.overlayPath()
	saved, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(path); err != nil {
		return nil, err
	}
	rows, err := s.Search(context.Background(), Query{Text: q})
	if err := os.WriteFile(path, saved, 0o644); err != nil {
		return nil, err
	}
	return rows, err
}

// A second edit of the file the overlay holds is searched at once: its
// size or time no longer match, and it is indexed again.
func TestOverlaySeesASecondEdit(t *testing.T) {
	eachOverlayLayout(t, func(t *testing.T, s *Store, search func(string) ([]Row, *bool)) {
		renameEdit(t, s, 7, "redis", "mysql")
		search("mysql")
		// Same size, in place, its time moved: only the time tells.
		path := s.IssuePath(7)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), "mysql", "pgsql")), 0o644); err != nil {
			t.Fatal(err)
		}
		later := info.ModTime().Add(time.Second)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
		if rows, took := search("pgsql"); len(rows) != 1 || tookOverlay(took) != "indexed" {
			t.Fatalf("after a same-size edit: %d rows, %s", len(rows), tookOverlay(took))
		}
		if rows, _ := search("mysql"); len(rows) != 0 {
			t.Fatalf("the old text still found: %+v", rows)
		}
		// Another size, renamed over it.
		renameEdit(t, s, 7, "pgsql", "sqlite")
		if rows, took := search("sqlite"); len(rows) != 1 || tookOverlay(took) != "indexed" {
			t.Fatalf("after a rename: %d rows, %s", len(rows), tookOverlay(took))
		}
	})
}

// A write to the store after the overlay was kept (another issue into the
// delta, or a new base) is searched, and the edit still is.
func TestOverlayFollowsAWrite(t *testing.T) {
	eachOverlayLayout(t, func(t *testing.T, s *Store, search func(string) ([]Row, *bool)) {
		renameEdit(t, s, 7, "redis", "mysql")
		search("mysql")
		if _, err := s.Store(context.Background(), []Observation{obs("engineer", 9, KeyFact, "Backups run hourly to cold storage")}); err != nil {
			t.Fatal(err)
		}
		if rows, _ := search("backups"); len(rows) != 1 {
			t.Fatalf("the new observation: %d rows", len(rows))
		}
		if rows, _ := search("mysql"); len(rows) != 1 {
			t.Fatalf("the edit: %d rows", len(rows))
		}
		if rows, _ := search("redis"); len(rows) != 0 {
			t.Fatalf("the text before the edit: %d rows", len(rows))
		}
	})
}

// A file changed within the racy margin is not kept: a second change in
// the same clock tick could keep its size and time.
func TestOverlayNotKeptWhenRacy(t *testing.T) {
	eachOverlayLayout(t, func(t *testing.T, s *Store, search func(string) ([]Row, *bool)) {
		s.freshMargin = time.Hour
		renameEdit(t, s, 7, "redis", "mysql")
		for range 2 {
			if rows, took := search("mysql"); len(rows) != 1 || tookOverlay(took) != "indexed" {
				t.Fatalf("%d rows, %s", len(rows), tookOverlay(took))
			}
		}
		if _, err := os.Stat(s.overlayPath()); err == nil {
			t.Fatal("an overlay was kept for a file changed within the margin")
		}
	})
}

// A damaged overlay is not taken: the file is indexed again.
func TestOverlayDamagedIsIgnored(t *testing.T) {
	eachOverlayLayout(t, func(t *testing.T, s *Store, search func(string) ([]Row, *bool)) {
		renameEdit(t, s, 7, "redis", "mysql")
		search("mysql")
		data, err := os.ReadFile(s.overlayPath())
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0x20
		if err := os.WriteFile(s.overlayPath(), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if rows, took := search("mysql"); len(rows) != 1 || tookOverlay(took) != "indexed" {
			t.Fatalf("%d rows, %s", len(rows), tookOverlay(took))
		}
	})
}

// A deleted issue file is kept in the overlay as missing, and one that
// comes back is searched.
func TestOverlayDeletedFile(t *testing.T) {
	eachOverlayLayout(t, func(t *testing.T, s *Store, search func(string) ([]Row, *bool)) {
		data, err := os.ReadFile(s.IssuePath(8))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(s.IssuePath(8)); err != nil {
			t.Fatal(err)
		}
		search("export")
		if rows, took := search("export"); len(rows) != 0 || tookOverlay(took) != "overlay taken" {
			t.Fatalf("deleted: %d rows, %s", len(rows), tookOverlay(took))
		}
		tmp := filepath.Join(s.Dir, ".back.tmp")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, s.IssuePath(8)); err != nil {
			t.Fatal(err)
		}
		if rows, _ := search("export"); len(rows) != 1 {
			t.Fatalf("back: %d rows", len(rows))
		}
	})
}

// The racy margin is measured from when the changed files were read, not
// from when the overlay is written: indexing that outlasts the rest of
// the margin must not turn a file read within it into one trusted by its
// size and time. A second write in the same clock tick after the read
// (other bytes, same size, same time) would otherwise be hidden behind
// the overlay of the first until the next agentx write.
func TestOverlayRacyWhenReadNotWhenWritten(t *testing.T) {
	t.Parallel()
	s, _ := overlayStore(t, "base")
	s.freshMargin = time.Hour
	path := s.IssuePath(7)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mod := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	const gen = 1
	nd, idx, err := s.withIssues(emptyDelta(gen), []int{7})
	if err != nil {
		t.Fatal(err)
	}
	read := time.Now() // not before the read
	// Indexing slow enough that the file has left the margin by the time
	// the overlay is written: the margin reaches back from the end of the
	// read exactly to the file's time, so the file was within it when
	// read and is past it at any later instant. Waiting for the clock to
	// pass the end of the read stands for the slow indexing; before, the
	// test slept two seconds for the file to leave a real margin (issue
	// 37).
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s.freshMargin = read.Sub(st.ModTime())
	for time.Now().UnixNano() <= read.UnixNano() { // the wall clock, as the store's times
		runtime.Gosched()
	}
	s.writeOverlay(gen, nil, []int{7}, nd, idx)
	// The second write of the same tick, after the read.
	edited := strings.ReplaceAll(string(data), "redis", "mysql")
	if len(edited) != len(data) || edited == string(data) {
		t.Fatal("the edit must keep the size")
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	if od := s.readOverlay(gen, nil, []int{7}); od != nil {
		t.Fatal("the overlay of the bytes before a same-tick second write is taken: the file was within the racy margin when read")
	}
}

// The overlay's checksum is FNV-1a (32 bits); an overlay of the format
// before (CRC-32, AXOVLY01) is not taken: the next search indexes the
// changed files again and writes it anew.
func TestOverlaySumIsFNV1a(t *testing.T) {
	t.Parallel()
	for _, b := range [][]byte{nil, []byte("a"), []byte(overlayMagic + "some overlay body of a few bytes"), make([]byte, 9000)} {
		h := fnv.New32a()
		h.Write(b)
		if got, want := overlaySum(b), h.Sum32(); got != want {
			t.Fatalf("%d bytes: %08x, want %08x", len(b), got, want)
		}
	}
	idx := memindex.NewBuilder().Encode(memindex.Stamp{Generation: 3})
	old := encodeOverlay(overlayKey{gen: 3}, emptyDelta(3), idx)
	copy(old, "AXOVLY01")
	le := binary.LittleEndian
	le.PutUint32(old[len(old)-4:], crc32.ChecksumIEEE(old[:len(old)-4]))
	if _, _, ok := decodeOverlay(old); ok {
		t.Fatal("an overlay of the format before was taken")
	}
	if _, _, ok := decodeOverlay(encodeOverlay(overlayKey{gen: 3}, emptyDelta(3), idx)); !ok {
		t.Fatal("an overlay just encoded was not taken")
	}
}
