//go:build unix

package lock

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/testenv"
)

// A FIFO or a symlink where a lock file belongs was made by no writer of
// the protocol: it is taken over at once instead of blocking on the FIFO
// for ever or writing through the link, and the link's target is left
// alone.
func TestSpecialFileAtLockPathIsTakenOver(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"fifo", "symlink", "dangling symlink"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "issue-1.json")
			outside := filepath.Join(t.TempDir(), "profile")
			if err := os.WriteFile(outside, []byte("keep me\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			lockPath := PathFor(target)
			var err error
			switch kind {
			case "fifo":
				err = syscall.Mkfifo(lockPath, 0o644)
			case "symlink":
				err = os.Symlink(outside, lockPath)
			default:
				err = os.Symlink(filepath.Join(dir, "nowhere"), lockPath)
			}
			if err != nil {
				t.Fatal(err)
			}
			l := New(Options{Wait: 2 * time.Second})
			ctx, cancel := context.WithTimeout(context.Background(), testenv.HangGuard)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				lk, err := l.Acquire(ctx, target)
				if err == nil {
					err = lk.Release()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(testenv.HangGuard + time.Minute):
				t.Fatal("Acquire hung on the special file")
			}
			if data, err := os.ReadFile(outside); err != nil || string(data) != "keep me\n" {
				t.Errorf("the link's target: %q %v", data, err)
			}
			if _, err := os.Lstat(lockPath); !os.IsNotExist(err) {
				t.Errorf("lock path after release: %v", err)
			}
		})
	}
}
