//go:build unix

package atomicfile_test

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestReadRegularRefusesFIFOWithoutBlocking(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "ledger.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	within(t, func() { _, err = atomicfile.ReadRegular(p, 0) })
	if !errors.Is(err, atomicfile.ErrNotRegular) || !errcode.Is(err, errcode.CorruptState) {
		t.Fatalf("err = %v, want CORRUPT_STATE not a regular file", err)
	}
	if !strings.Contains(err.Error(), "FIFO") || !strings.Contains(err.Error(), p) {
		t.Errorf("error does not name the path and kind: %v", err)
	}
	within(t, func() { _, err = atomicfile.ReadInput("--summary-file", p, 0) })
	if !errcode.Is(err, errcode.InvalidInput) || !strings.Contains(err.Error(), "--summary-file") {
		t.Fatalf("input err = %v", err)
	}
}
