package lock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/process"
)

// Who holds a lock file, whether it is stale (its process dead on this
// host, or its age past the threshold), its takeover, and the
// LOCK_TIMEOUT that names the holder.

// holder describes the current lock file as judged at one instant.
type holder struct {
	data    []byte
	info    fs.FileInfo
	content Content
	parsed  bool
	age     time.Duration
	stale   bool
	reason  string
}

func (l *Locker) inspect(path string) (*holder, error) {
	data, info, err := readLockFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, errNotLock) && info != nil {
		// A FIFO, a symlink or a directory where a lock file belongs was
		// made by no writer of the protocol (reading a FIFO would block
		// for ever): judged stale at once and taken over.
		return &holder{info: info, stale: true, reason: err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	h := &holder{data: data, info: info}
	now := l.opt.Clock.Now()
	c, at, ok := ParseContent(h.data)
	h.content, h.parsed = c, ok
	if ok {
		h.age = now.Sub(at)
	} else {
		// Empty or junk: a crash between create and write. Age by mtime so
		// it can never block writers for ever, yet a live lock whose owner
		// is still writing its content is not stolen.
		h.age = now.Sub(info.ModTime())
	}
	switch {
	case h.age > l.opt.StaleAfter:
		h.stale, h.reason = true, "older than "+l.opt.StaleAfter.String()
	case ok && c.Host != "" && c.Host == l.host && c.PID > 0 && c.PID != l.pid && !process.Alive(c.PID):
		h.stale, h.reason = true, "holder pid "+strconv.Itoa(c.PID)+" is dead"
	}
	return h, nil
}

// takeOver removes the stale lock h so that exactly one process creates the
// next one. Under the directory's guard it re-reads the lock file and
// removes it only if it is still the very lock judged stale (same inode,
// same bytes); a lock that changed meanwhile is left alone and judged again.
// (Renaming the stale file aside without a guard is not enough: a second
// taker can move the first taker's fresh lock aside, and a third process
// can create one in the gap.)
func (l *Locker) takeOver(ctx context.Context, path string, h *holder) bool {
	g, err := lockGuard(ctx, filepath.Dir(path))
	if err != nil {
		return false
	}
	defer g.unlock()
	info, err := os.Lstat(path)
	if err != nil || !os.SameFile(info, h.info) {
		return false
	}
	if info.Mode().IsRegular() {
		data, _, err := readLockFile(path)
		if err != nil || !bytes.Equal(data, h.data) {
			return false
		}
	} else if info.IsDir() {
		return false // never removed: a person must look at it
	}
	return os.Remove(path) == nil
}

func (l *Locker) timeoutError(target string, h *holder) error {
	path := PathFor(target)
	msg := fmt.Sprintf("could not lock %s within %s", path, l.opt.Wait)
	if h != nil {
		who := h.content.Agent
		if who == "" {
			who = "unknown agent"
		}
		if h.parsed {
			msg += fmt.Sprintf(": held by %s (pid %d) for %s", who, h.content.PID, h.age.Round(time.Millisecond))
		} else {
			msg += fmt.Sprintf(": lock file unreadable, %s old", h.age.Round(time.Millisecond))
		}
	} else {
		msg += ": busy in this process"
	}
	e := errcode.New(errcode.LockTimeout, "%s", msg)
	e.Hint = fmt.Sprintf("retry; a lock older than %s is taken over automatically", l.opt.StaleAfter)
	return e
}
