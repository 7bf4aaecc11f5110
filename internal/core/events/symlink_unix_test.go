//go:build unix

package events

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/testenv"
)

// A symlink or a FIFO planted at the event log (a cloned repository can
// carry one aimed at a shell profile) is refused: nothing is appended
// through it, and the append does not block.
func TestPlantedLinkOrFIFOAtTheLogIsNotWrittenThrough(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"symlink", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state", "events.jsonl")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(t.TempDir(), ".bashrc")
			if err := os.WriteFile(outside, []byte("# mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if kind == "symlink" {
				err = os.Symlink(outside, path)
			} else {
				err = syscall.Mkfifo(path, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			l := &Log{Path: path, Locks: lock.New(lock.Options{Wait: time.Second}), Clock: clock.Real{}}
			ctx, cancel := context.WithTimeout(context.Background(), testenv.HangGuard)
			defer cancel()
			err = l.Append(ctx, "test", map[string]string{"x": "echo pwned"})
			if !errors.Is(err, atomicfile.ErrNotRegular) {
				t.Fatalf("append: %v", err)
			}
			if data, _ := os.ReadFile(outside); string(data) != "# mine\n" {
				t.Fatalf("written through the link: %q", data)
			}
		})
	}
}
