//go:build unix

package audit

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/testenv"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesSymlinkAndFIFO(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"symlink", "fifo", "dir"} {
		t.Run(kind, func(t *testing.T) {
			tr := trail(t, nil)
			if err := os.MkdirAll(tr.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			switch kind {
			case "symlink":
				outside := filepath.Join(t.TempDir(), "elsewhere.jsonl")
				_ = os.WriteFile(outside, nil, 0o644)
				_ = os.Symlink(outside, tr.Path())
			case "fifo":
				mkfifo(t, tr.Path())
			case "dir":
				_ = os.Mkdir(tr.Path(), 0o755)
			}
			done := make(chan error, 1)
			go func() { done <- tr.Append(context.Background(), Entry{Actor: "a", Op: "x"}) }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("append through a " + kind + " succeeded")
				}
			case <-time.After(testenv.HangGuard):
				t.Fatal("append hung")
			}
			if got, _, _ := Check(tr.Dir); len(got) != 1 || got[0].Code != CodeUnreadable {
				t.Fatalf("check of a %s: %+v", kind, got)
			}
			if _, err := History(tr.Dir, Filter{}); err == nil {
				t.Fatalf("history read through a %s", kind)
			}
		})
	}
}
