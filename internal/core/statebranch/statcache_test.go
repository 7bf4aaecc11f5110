package statebranch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/gitstore"
)

// TestStatCacheSeesEveryChange: a remembered hash is used only while the
// file is the very version that was hashed.
func TestStatCacheSeesEveryChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agentx := filepath.Join(dir, ".agentx")
	rel := "memory/issue-1.json"
	p := filepath.Join(agentx, "memory", "issue-1.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string, mtime time.Time) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	write(`{"a":1}`, old)
	cachePath := filepath.Join(dir, "cache")
	scan := func() (plumbing string, cached bool) {
		c := gitstore.LoadStatCache(cachePath)
		local, err := scanLocal(context.Background(), agentx, "", c)
		if err != nil {
			t.Fatal(err)
		}
		f := local[rel]
		_, cached = c.Lookup(rel, f.Stat)
		// Saved as if the racy window had passed for every file.
		if err := c.Save(local, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		return f.Hash.String(), cached
	}
	h1, cached := scan()
	if cached || h1 != gitstore.BlobHash([]byte(`{"a":1}`)).String() {
		t.Fatalf("first scan: %s cached=%v", h1, cached)
	}
	if h, cached := scan(); !cached || h != h1 {
		t.Fatalf("unchanged file not served from the cache: %s %v", h, cached)
	}
	// Same size, same modification time, rewritten in place.
	write(`{"a":2}`, old)
	if h, _ := scan(); h == h1 || h != gitstore.BlobHash([]byte(`{"a":2}`)).String() {
		t.Fatalf("in-place rewrite with the same size and mtime missed: %s", h)
	}
	// A corrupt cache is an empty one.
	if err := os.WriteFile(cachePath, []byte("agentx-statcache 1\nnot a line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := gitstore.LoadStatCache(cachePath); c.Len() != 0 {
		t.Fatalf("corrupt cache read: %d entries", c.Len())
	}
}
