package ledger

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// A ledger over the state limit is CORRUPT_STATE naming the file once and
// the limit (a sparse file: nothing is written).
func TestOversizeLedgerIsNamedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "issue-9.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(atomicfile.StateLimit + 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for name, load := range map[string]func() error{
		"LoadFile":   func() error { _, err := LoadFile(path, 9); return err },
		"loadLocked": func() error { _, _, err := loadLocked(path, 9); return err },
	} {
		err := load()
		if !errcode.Is(err, errcode.CorruptState) {
			t.Fatalf("%s: %v, want CORRUPT_STATE", name, err)
		}
		if n := strings.Count(err.Error(), path); n != 1 || !strings.Contains(err.Error(), "limit of 256 MB") {
			t.Errorf("%s: %q names the file %d times, want once, and the limit", name, err, n)
		}
	}
}
