package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hook runs before the temporary exists (a signal handler armed there
// covers the whole write), for Write and Stage alike, and the restore puts
// the previous hook back. Not parallel: the hook is the process's.
func TestBeforeCreateRunsBeforeTheTemporary(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	restore := SetBeforeCreate(func() {
		calls++
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("a temporary exists before the hook ran: %s", e.Name())
			}
		}
	})
	if err := Write(filepath.Join(dir, "a"), []byte("x"), Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	st, err := Stage(filepath.Join(dir, "b"), []byte("y"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	st.Discard()
	if calls != 2 {
		t.Fatalf("hook called %d times for a write and a stage, want 2", calls)
	}
	restore()
	if err := Write(filepath.Join(dir, "c"), []byte("z"), Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Fatalf("hook still called after its restore (%d calls)", calls)
	}
}
