package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// listNames gives every name of a directory, "." and ".." not among
// them, past one getdents buffer's worth; an error for a missing one.
func TestListNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var want []string
	for i := range 300 {
		name := fmt.Sprintf("issue-%d-a-marker-name-long-enough-to-fill-buffers-%03d", i, i)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, name)
	}
	got, err := listNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("listNames: %d names, want %d", len(got), len(want))
	}
	if _, err := listNames(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing directory listed")
	}
}
