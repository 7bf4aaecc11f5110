package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
)

// A checkpoint is made in two writes that no lock makes one: the ref moves
// to the new commit, then the caller appends its checkpoint.create line.
// A kill between them left a checkpoint no line names, which verify could
// not tell from a forged one and --repair could not clear (issue 32: 50 of
// 100 killed creates). So create first writes a pending mark naming the
// checkpoint and its tree (in the git directory, beside the ref: local,
// never committed), and the line's append removes it. A checkpoint with
// no line and a mark is agentx's own, cut short: --repair appends its line
// (RecordLost). One with no line and no mark is not agentx's: reported
// as such, and restored only with --force. A forger who writes a mark as
// well passes as a crash: the mark is as trusted as the git directory.

// pendingDir holds the marks.
func (s *Store) pendingDir() string { return filepath.Join(s.repo.GitDir, "agentx", "pending-audit") }

func (s *Store) pendingPath(short string) string { return filepath.Join(s.pendingDir(), short) }

// markPending records that checkpoint c is about to be made.
func (s *Store) markPending(c Checkpoint) error {
	if err := os.MkdirAll(s.pendingDir(), 0o755); err != nil {
		return fmt.Errorf("checkpoint pending mark: %w", err)
	}
	return atomicfile.Write(s.pendingPath(c.Short), []byte("tree:"+c.Tree+"\n"), atomicfile.Options{})
}

// clearPending removes c's mark: its line is on the trail, or it was never
// made.
func (s *Store) clearPending(short string) {
	if short != "" && !strings.ContainsAny(short, `/\.`) {
		_ = os.Remove(s.pendingPath(short))
	}
}

// Pending reports whether c carries agentx's pending mark: made by agentx,
// its audit line not appended yet (or lost).
func (s *Store) Pending(c Checkpoint) bool {
	data, err := os.ReadFile(s.pendingPath(c.Short))
	return err == nil && strings.TrimSpace(string(data)) == "tree:"+c.Tree
}

// ErrNotPending is RecordLost's refusal of a checkpoint without agentx's
// mark: it is not agentx's to vouch for.
var ErrNotPending = errors.New("no pending mark: agentx did not make this checkpoint, or its line is already on the trail")

// RecordLost appends the checkpoint.create line of checkpoint id, made by
// agentx but cut short before its line (its pending mark says so), to
// trail, and removes the mark.
func (s *Store) RecordLost(ctx context.Context, id string, trail *audit.Trail) error {
	c, err := s.Get(id)
	if err != nil {
		return err
	}
	if !s.Pending(c) {
		if _, statErr := os.Stat(s.pendingPath(c.Short)); errors.Is(statErr, fs.ErrNotExist) {
			return ErrNotPending
		}
		return fmt.Errorf("%w (its mark names another tree)", ErrNotPending)
	}
	if _, made := ReadTrail(trail.Dir).At(c); !made {
		e, _ := CreateEntry(&Result{Checkpoint: c, Created: true}, c.Message)
		e.Detail = "recorded by verify --repair: the checkpoint was made, its line lost to a kill; " + e.Detail
		if err := trail.Append(ctx, e); err != nil {
			return err
		}
	}
	s.clearPending(c.Short)
	return nil
}
