//go:build unix

package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Issue 32: a FIFO where a ref should be is refused at once, never opened
// (opening it would wait for a writer for ever).
func TestFIFORefRefused(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	p := filepath.Join(r.CommonDir, "refs", "agentx", "checkpoints")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Ref("refs/agentx/checkpoints"); !errors.Is(err, ErrRefNotFile) {
		t.Fatalf("Ref: %v", err)
	}
	if err := r.SetRef("refs/agentx/checkpoints", commitOf(t, r, 1)); !errors.Is(err, ErrRefNotFile) {
		t.Fatalf("SetRef: %v", err)
	}
	if _, err := r.Refs("refs/agentx/"); !errors.Is(err, ErrRefNotFile) {
		t.Fatalf("Refs: %v", err)
	}
}
