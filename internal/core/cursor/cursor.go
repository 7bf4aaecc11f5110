// Package cursor owns how far each session's transcript has been captured:
// one small file per session under `.agentx/memory/cursors/`, so a host that
// fires its hook after every turn (Codex Stop, Copilot agentStop, Claude
// Code Stop) has each turn captured once, not the whole transcript again.
//
// A cursor only moves forward, under its lock: two hooks of one session
// racing cannot move it back. A transcript that shrank (replaced, or a
// different file) is detected by the caller: capture.ExtractFile starts
// again from 0 when the offset is past the end.
package cursor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// TTL is how long an untouched cursor is kept. Sessions are resumed within
// days; a month is far past that.
const TTL = 30 * 24 * time.Hour

// Cursors is one cursor directory.
type Cursors struct {
	dir    string
	locker *lock.Locker
	clock  clock.Clock
}

// New returns the cursors kept in dir (created on first Set).
func New(dir string, locker *lock.Locker, clk clock.Clock) *Cursors {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Cursors{dir: dir, locker: locker, clock: clk}
}

// file is a cursor's content. The transcript path is kept so a session
// whose transcript moved starts again from 0.
type file struct {
	SessionID  string `json:"sessionId"`
	Transcript string `json:"transcript"`
	Offset     int64  `json:"offset"`
	UpdatedAt  string `json:"updatedAt"`
}

// path names a session's cursor by a hash: session ids come from hosts and
// must not become paths as they are.
func (c *Cursors) path(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:12])+".json")
}

// Get returns where the next capture of the session's transcript starts: 0
// for a new session, or when the recorded transcript is another file. An
// unreadable cursor file counts as absent (the capture then re-reads the
// transcript, and de-duplication absorbs the repeat).
func (c *Cursors) Get(sessionID, transcript string) int64 {
	data, err := atomicfile.ReadRegular(c.path(sessionID), atomicfile.StateLimit)
	if err != nil {
		return 0
	}
	var f file
	if json.Unmarshal(data, &f) != nil || f.SessionID != sessionID || f.Transcript != transcript || f.Offset < 0 {
		return 0
	}
	return f.Offset
}

// Transcript is the transcript path the session's cursor records ("" when
// it has none): a host whose session-end payload names no transcript
// (Copilot CLI's sessionEnd) is captured from where its turns were.
func (c *Cursors) Transcript(sessionID string) string {
	data, err := atomicfile.ReadRegular(c.path(sessionID), atomicfile.StateLimit)
	if err != nil {
		return ""
	}
	var f file
	if json.Unmarshal(data, &f) != nil || f.SessionID != sessionID {
		return ""
	}
	return f.Transcript
}

// Set records that the session's transcript was captured up to offset. It
// never moves a cursor back for the same transcript.
func (c *Cursors) Set(ctx context.Context, sessionID, transcript string, offset int64) error {
	if sessionID == "" {
		return nil // nothing to key it by: the next capture reads from 0
	}
	target := c.path(sessionID)
	err := atomicfile.WithLock(ctx, c.locker, target, func(lk *lock.Lock) error {
		if cur := c.Get(sessionID, transcript); cur >= offset {
			return nil
		}
		data, err := jsonfile.Marshal(file{SessionID: sessionID, Transcript: transcript, Offset: offset,
			UpdatedAt: clock.Format(c.clock.Now())})
		if err != nil {
			return err
		}
		return atomicfile.Write(target, data, atomicfile.Options{Perm: 0o600, Commit: lk.Commit})
	})
	if err != nil {
		return fmt.Errorf("cursor %s: %w", sessionID, err)
	}
	return nil
}

// Prune removes cursors untouched for TTL.
func (c *Cursors) Prune() error {
	des, err := os.ReadDir(c.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("prune cursors: %w", err)
	}
	now := c.clock.Now()
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		if info, err := de.Info(); err == nil && now.Sub(info.ModTime()) > TTL {
			_ = os.Remove(filepath.Join(c.dir, de.Name()))
		}
	}
	return nil
}
