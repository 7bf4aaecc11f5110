//go:build linux

package fileid

import (
	"os"
	"path/filepath"
	"testing"
)

// The identity a read takes is the one a stat sees until someone writes
// the file; an atomic replacement with the same bytes still changes it.
func TestIdentityFollowsWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "issue-1.json")
	if err := os.WriteFile(path, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	data, id, ok, err := Read(path, 1<<20)
	if err != nil || !ok || string(data) != `{"a":1}` {
		t.Fatalf("read %q %v %v", data, ok, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Close() }()
	if got, ok := StatAt(d, "issue-1.json"); !ok || got != id {
		t.Fatalf("stat %+v, read %+v", got, id)
	}
	tmp := filepath.Join(dir, ".tmp")
	if err := os.WriteFile(tmp, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if got, ok := StatAt(d, "issue-1.json"); !ok || got == id {
		t.Fatalf("a replaced file kept its identity %+v", got)
	}
	if _, ok := StatAt(d, "missing"); ok {
		t.Fatal("a missing file has an identity")
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := StatAt(d, "sub"); ok {
		t.Fatal("a directory has an identity")
	}
	if _, _, _, err := Read(path, 3); err == nil {
		t.Fatal("a file over the limit was read")
	}
}
