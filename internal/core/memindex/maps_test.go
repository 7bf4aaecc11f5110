package memindex

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// writeIndex renames an index of docs documents (each "word") over path,
// as the store's writers replace it.
func writeIndex(t *testing.T, path, word string, docs int) {
	t.Helper()
	b := NewBuilder()
	for i := range docs {
		b.Add(Doc{Issue: 1, Time: int64(i)}, word)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Encode(Stamp{Generation: uint64(docs)}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func hitsOf(t *testing.T, ix *Index, word string) int {
	t.Helper()
	hits, err := ix.Search(Query{Text: word, Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	return len(hits)
}

// A file searched again is not mapped again; a file renamed over it is,
// and a view of the old one stays readable until it is closed.
func TestMapsKeepsTheMappingOfAnUnchangedFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "search.idx")
	writeIndex(t, path, "redis", 3)
	var m Maps
	a, closeA, err := m.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b, closeB, err := m.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("the unchanged file was mapped again")
	}
	closeB()
	writeIndex(t, path, "mysql", 5)
	c, closeC, err := m.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closeC()
	if c == a || hitsOf(t, c, "mysql") != 5 || hitsOf(t, c, "redis") != 0 {
		t.Fatal("the new file was not mapped")
	}
	// The old view, still open, reads the old file.
	if hitsOf(t, a, "redis") != 3 {
		t.Fatal("the old view lost its file")
	}
	closeA()
	closeA() // a second close releases nothing more
	d, closeD, err := m.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closeD()
	if d != c {
		t.Fatal("the current file was mapped again")
	}
}

// Searches and replacements at once (go test -race): every view reads
// one whole file, old or new, never a mapping released under it.
func TestMapsConcurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "search.idx")
	writeIndex(t, path, "redis", 4)
	var m Maps
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				ix, closeFn, err := m.Open(path)
				if err != nil {
					t.Error(err)
					return
				}
				if n := hitsOf(t, ix, "redis") + hitsOf(t, ix, "mysql"); n != 4 {
					t.Errorf("a view of %d documents", n)
				}
				closeFn()
			}
		})
	}
	for i := range 50 {
		word := []string{"redis", "mysql"}[i%2]
		writeIndex(t, path, word, 4)
	}
	wg.Wait()
}
