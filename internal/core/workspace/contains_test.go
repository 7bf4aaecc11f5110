package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

func TestContains(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	ws := Workspace{Root: root}
	inner := filepath.Join(root, "a")
	_ = os.Mkdir(inner, 0o755)
	_ = os.Symlink(inner, filepath.Join(root, "in-link"))
	_ = os.Symlink(outside, filepath.Join(root, "out-link"))
	for path, want := range map[string]bool{
		inner: true, filepath.Join(root, "in-link"): true, root: true,
		filepath.Join(root, "out-link"): false, outside: false, filepath.Join(root, "missing"): false,
		filepath.Join(root, "a", "..", ".."): false,
	} {
		if got := ws.Contains(path); got != want {
			t.Errorf("Contains(%s) = %v, want %v", path, got, want)
		}
	}
}
