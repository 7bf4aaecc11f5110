//go:build unix

package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// flockAppended names the files appended under a flock(2) of the file
// itself instead of their lock file (package events): a restore holding
// only the lock file would rename the log away under an append, which
// then lands in the replaced file and is lost to both the checkpoint of
// the state before and the restored log.
var flockAppended = []string{"state/events.jsonl"}

// appendWait bounds the wait for an appender's flock: one holds it for a
// write, or a trim of a few hundred KB.
const appendWait = 5 * time.Second

// holdAppended takes the flock of each of paths that is appended under
// one and returns its release; held from before the checkpoint of the
// state before until every file is restored, an append waits and then
// finds the log replaced and starts over on the restored one.
func (s *Store) holdAppended(ctx context.Context, paths []string) (release func(), err error) {
	var held []func()
	release = func() {
		for _, r := range held {
			r()
		}
	}
	for _, p := range flockAppended {
		if !slices.Contains(paths, p) {
			continue
		}
		f, err := atomicfile.OpenRegular(s.abs(p))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, atomicfile.ErrNotRegular) {
			continue // nothing appends to it (a symlink is never written through)
		}
		if err != nil {
			release()
			return func() {}, fmt.Errorf("restore %s: %w", p, err)
		}
		unlock, err := atomicfile.FlockWait(ctx, f, appendWait)
		if err != nil {
			_ = f.Close()
			release()
			return func() {}, fmt.Errorf("restore %s: %w", p, err)
		}
		held = append(held, func() { unlock(); _ = f.Close() })
	}
	return release, nil
}
