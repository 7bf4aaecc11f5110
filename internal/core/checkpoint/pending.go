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

// restoreMark is the pending mark of a restore: written before the first
// file is put back, removed once its checkpoint.restore line is appended.
// A restore killed between leaves files the trail does not account for
// (observations gone without a remove line); the mark says a restore did
// it, and --repair appends its line (RecordRestore).
const restoreMark = "restore"

func (s *Store) markRestore(c Checkpoint) error {
	if err := os.MkdirAll(s.pendingDir(), 0o755); err != nil {
		return fmt.Errorf("checkpoint pending mark: %w", err)
	}
	return atomicfile.Write(s.pendingPath(restoreMark), []byte(c.Short+"\n"), atomicfile.Options{})
}

// RestorePending returns the checkpoint a restore was putting back when it
// was killed before its line ("" when none).
func (s *Store) RestorePending() string {
	data, err := os.ReadFile(s.pendingPath(restoreMark))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// RecordRestore appends the checkpoint.restore line of the restore of id
// a kill cut off before its line (its mark says so), and removes the mark.
func (s *Store) RecordRestore(ctx context.Context, id string, trail *audit.Trail) error {
	if got := s.RestorePending(); got == "" || got != id {
		return fmt.Errorf("no pending restore of %s", id)
	}
	c, err := s.Get(id)
	if err != nil {
		return err
	}
	e := audit.Entry{Op: OpRestore, IDs: []string{c.Short},
		Detail: "recorded by verify --repair: the restore was killed before its line (if it was cut short, run `agentx-hook checkpoint restore " + c.Short + "` again)"}
	if err := trail.Append(ctx, e); err != nil {
		return err
	}
	s.clearPending(restoreMark)
	return nil
}
