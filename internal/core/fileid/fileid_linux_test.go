//go:build linux

package fileid

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// ReadExpect gives the bytes expected, without a copy, only when the file
// holds exactly them, and otherwise what Read gives; the identity is
// Read's either way.
func TestReadExpect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "issue-1.json")
	big := []byte(strings.Repeat("0123456789abcdef", 5000)) // past the compare buffer
	for _, c := range []struct {
		name       string
		file, want []byte
	}{
		{"same", big, big},
		{"same, empty", []byte{}, []byte{}},
		{"same size, last byte differs", big, append(append([]byte(nil), big[:len(big)-1]...), 'x')},
		{"same size, first byte differs", big, append([]byte{'x'}, big[1:]...)},
		{"file longer", big, big[:len(big)-1]},
		{"file shorter", big[:len(big)-1], big},
		{"want nil", []byte("x"), nil},
	} {
		if err := os.WriteFile(path, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		_, wantID, _, err := Read(path, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		want := append([]byte(nil), c.want...)
		data, id, ok, err := ReadExpect(path, 1<<20, want)
		if err != nil || !ok || id != wantID {
			t.Fatalf("%s: id %+v (want %+v) ok %v err %v", c.name, id, wantID, ok, err)
		}
		if !bytes.Equal(data, c.file) {
			t.Fatalf("%s: got %d bytes, the file holds %d", c.name, len(data), len(c.file))
		}
		handedBack := len(data) > 0 && len(want) > 0 && &data[0] == &want[0]
		if same := len(c.file) > 0 && c.want != nil && bytes.Equal(c.file, c.want); handedBack != same {
			t.Fatalf("%s: the expected bytes handed back: %v, want %v", c.name, handedBack, same)
		}
	}
	// Over the limit: refused as Read refuses it, whatever was expected.
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := ReadExpect(path, 10, big); err == nil {
		t.Fatal("a file over the limit was read")
	}
}
