// Package spool owns the durable hand-off between a host hook that must
// return quickly and the work it starts: `hook finish` writes its capture
// here first (one atomic file, a few milliseconds: intake's entry, the hook
// payload already sanitised, never the raw payload, since the file stays on
// disk if the hook is killed), then processes it; whatever a killed or
// timed-out hook leaves is processed by the next `hook start` for the same
// project.
//
// Each entry is processed exactly once: Claim takes the entry's lock (so two
// processes never work on one entry at the same time) and re-checks that the
// entry is still pending under it, and Done records a done marker before the
// entry is removed, so an entry put again with the same key (a host that
// fires SessionEnd after Stop for the same turn) is not processed twice.
//
// Layout under the spool directory (`.agentx/memory/spool/`):
//
//	<key>.spool        the entry, pending
//	<key>.spool.lock   held while a process works on it (lock package)
//	<key>.done         the entry was processed (pruned after DoneTTL)
package spool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

const (
	pendingExt = ".spool"
	doneExt    = ".done"
	// DoneTTL is how long a done marker is kept to refuse a repeated Put of
	// the same turn. Hosts repeat a turn's hooks within seconds; a week is
	// far past that and keeps the directory small.
	DoneTTL = 7 * 24 * time.Hour
	// ClaimWait is how long Claim waits for another process's lock on the
	// entry. A holder is working on it: waiting longer would only delay the
	// caller (a hook with a deadline), and the holder's Done makes the entry
	// not pending anyway.
	ClaimWait = 100 * time.Millisecond
)

// ErrNotPending reports that an entry is done, or held by another process.
var ErrNotPending = errors.New("spool entry is not pending")

// Spool is one spool directory.
type Spool struct {
	dir    string
	locker *lock.Locker
	clock  clock.Clock
	noSync bool
}

// Options tune a Spool.
type Options struct {
	// Clock ages done markers (default: wall clock).
	Clock clock.Clock
	// NoSync skips fsyncs (benchmarks and throwaway trees only).
	NoSync bool
}

// New returns the spool in dir (created on first Put). The locker should be
// the process's one Locker.
func New(dir string, locker *lock.Locker, opt Options) *Spool {
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	return &Spool{dir: dir, locker: locker, clock: opt.Clock, noSync: opt.NoSync}
}

// Dir is the spool directory.
func (s *Spool) Dir() string { return s.dir }

// Key derives an entry key from parts that identify one unit of work, for
// example a session id and a transcript's size and last line: the same turn
// gives the same key however often its hooks fire.
func Key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// validKey keeps keys to file-name-safe characters: a key becomes a path.
func validKey(key string) error {
	if key == "" || len(key) > 128 {
		return errcode.New(errcode.InvalidInput, "spool key must be 1 to 128 characters")
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return errcode.New(errcode.InvalidInput, "spool key %q may hold only letters, digits, '-' and '_'", key)
		}
	}
	return nil
}

func (s *Spool) pendingPath(key string) string { return filepath.Join(s.dir, key+pendingExt) }
func (s *Spool) donePath(key string) string    { return filepath.Join(s.dir, key+doneExt) }

// Put stores payload durably under key (atomic write, fsynced). It returns
// added=false, and changes nothing, when the key is already pending or
// already done: a repeated hook for the same turn is not queued twice.
func (s *Spool) Put(ctx context.Context, key string, payload []byte) (added bool, err error) {
	if err := validKey(key); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := s.confined(); err != nil {
		return false, err
	}
	for _, p := range []string{s.donePath(key), s.pendingPath(key)} {
		if _, err := os.Stat(p); err == nil {
			return false, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("spool put %s: %w", key, err)
		}
	}
	if err := atomicfile.Write(s.pendingPath(key), payload, atomicfile.Options{Perm: 0o600, NoSync: s.noSync}); err != nil {
		return false, fmt.Errorf("spool put %s: %w", key, err)
	}
	return true, nil
}

// Entry is a pending entry.
type Entry struct {
	Key      string
	Size     int64
	Received time.Time // the payload file's modification time
}

// Pending lists the pending entries, oldest first. It also prunes done
// markers older than DoneTTL. A missing directory has no entries.
func (s *Spool) Pending() ([]Entry, error) {
	if err := s.confined(); err != nil {
		return nil, err
	}
	des, err := os.ReadDir(s.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("spool list %s: %w", s.dir, err)
	}
	now := s.clock.Now()
	var out []Entry
	for _, de := range des {
		name := de.Name()
		switch {
		case strings.HasSuffix(name, pendingExt):
			key := strings.TrimSuffix(name, pendingExt)
			if validKey(key) != nil {
				continue
			}
			info, err := de.Info()
			if err != nil {
				continue // removed since ReadDir
			}
			out = append(out, Entry{Key: key, Size: info.Size(), Received: info.ModTime()})
		case strings.HasSuffix(name, doneExt):
			if info, err := de.Info(); err == nil && now.Sub(info.ModTime()) > DoneTTL {
				_ = os.Remove(filepath.Join(s.dir, name))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Received.Equal(out[j].Received) {
			return out[i].Received.Before(out[j].Received)
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// Claim is an entry held by this process until Done or Release.
type Claim struct {
	s       *Spool
	key     string
	payload []byte
	lk      *lock.Lock
	// attempt is this claim's attempt at the entry, counted when it was
	// claimed (1 for the first).
	attempt int
}

// Claim takes the entry for processing. It returns ErrNotPending when the
// entry is done, gone, or being processed by another process right now.
func (s *Spool) Claim(ctx context.Context, key string) (*Claim, error) {
	if err := validKey(key); err != nil {
		return nil, err
	}
	if err := s.confined(); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, ClaimWait)
	defer cancel()
	lk, err := s.locker.Acquire(wctx, s.pendingPath(key))
	if err != nil {
		if errcode.Is(err, errcode.LockTimeout) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("spool claim %s: %w", key, ErrNotPending)
		}
		return nil, fmt.Errorf("spool claim %s: %w", key, err)
	}
	release := func(err error) (*Claim, error) {
		_ = lk.Release()
		return nil, err
	}
	// Re-check under the lock: the previous holder may have finished.
	if _, err := os.Stat(s.donePath(key)); err == nil {
		// Done, but the payload was put again (or its removal was cut
		// short): drop it so Pending stops listing it.
		_ = os.Remove(s.pendingPath(key))
		return release(fmt.Errorf("spool claim %s: %w", key, ErrNotPending))
	}
	if _, err := os.Lstat(s.pendingPath(key)); errors.Is(err, fs.ErrNotExist) {
		return release(fmt.Errorf("spool claim %s: %w", key, ErrNotPending))
	}
	// The attempt is counted before any work starts: a process the host
	// kills in the middle of the work (Claude Code gives SessionEnd 1.5 s)
	// never reaches Fail, and an entry that always outlives its hook would
	// otherwise be retried, and hang every session start, for ever.
	c := &Claim{s: s, key: key, lk: lk, attempt: s.attempts(key) + 1}
	if c.attempt > MaxAttempts {
		dst, err := c.quarantine()
		if err != nil {
			return nil, err
		}
		return nil, &QuarantinedError{Key: key, Path: dst, Attempts: c.attempt - 1}
	}
	if err := atomicfile.Write(s.attemptsPath(key), []byte(fmt.Sprintf("%d\n", c.attempt)), atomicfile.Options{
		Perm: 0o600, NoSync: s.noSync, Commit: lk.Commit,
	}); err != nil {
		return release(fmt.Errorf("spool attempt %s: %w", key, err))
	}
	payload, err := atomicfile.ReadRegular(s.pendingPath(key), atomicfile.StateLimit)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return release(fmt.Errorf("spool claim %s: %w", key, ErrNotPending))
		}
		return release(fmt.Errorf("spool claim %s: %w", key, err))
	}
	c.payload = payload
	return c, nil
}

// QuarantinedError is a claim refused because the entry had used up its
// attempts (each killed or failed before it finished): it was moved to
// Path, out of the way of every later hook, and is kept there for a person.
type QuarantinedError struct {
	Key      string
	Path     string
	Attempts int
}

func (e *QuarantinedError) Error() string {
	return fmt.Sprintf("spooled entry %s was tried %d times without finishing (each attempt was cut off or failed); moved to %s", e.Key, e.Attempts, e.Path)
}

// Is makes a quarantined entry ErrNotPending too.
func (e *QuarantinedError) Is(target error) bool { return target == ErrNotPending }

// attempts is how many attempts were counted on key.
func (s *Spool) attempts(key string) int {
	n := 0
	if data, err := atomicfile.ReadRegular(s.attemptsPath(key), 64); err == nil {
		_, _ = fmt.Sscanf(string(data), "%d", &n)
	}
	return n
}

// Key is the claimed entry's key.
func (c *Claim) Key() string { return c.key }

// Attempt is this claim's attempt at the entry (1 for the first): more
// than 1 means an earlier process began it and never finished.
func (c *Claim) Attempt() int { return c.attempt }

// GiveUp moves the claimed entry to FailedDir at once, whatever its
// attempts, and releases it: for an entry shown to be unable to finish
// (cut off by a hook's deadline after an earlier attempt died on it).
func (c *Claim) GiveUp() (movedTo string, err error) {
	defer func() { _ = c.lk.Release() }()
	return c.quarantine()
}

// Payload is the claimed entry's payload.
func (c *Claim) Payload() []byte { return c.payload }

// Done records that the entry was processed, removes it and releases the
// claim. The done marker is written before the payload is removed, and
// only while the lock is still ours, so a claim that was taken over (we
// were paused past the lock's stale threshold) never marks the other
// process's work.
func (c *Claim) Done() error {
	defer func() { _ = c.lk.Release() }()
	if err := atomicfile.Write(c.s.donePath(c.key), nil, atomicfile.Options{
		Perm: 0o600, NoSync: c.s.noSync, Commit: c.lk.Commit,
	}); err != nil {
		return fmt.Errorf("spool done %s: %w", c.key, err)
	}
	if err := os.Remove(c.s.pendingPath(c.key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("spool done %s: %w", c.key, err)
	}
	_ = os.Remove(c.s.attemptsPath(c.key))
	return nil
}

// Release gives the entry back unprocessed (it stays pending).
func (c *Claim) Release() error { return c.lk.Release() }

// MaxAttempts is how many times an entry is tried before it is given up:
// an entry that can never succeed (its transcript is a directory, its
// payload unreadable) would otherwise be retried, and warned about, at
// every hook start for ever.
const MaxAttempts = 3

const (
	attemptsExt = ".attempts"
	failedDir   = "failed"
)

func (s *Spool) attemptsPath(key string) string { return filepath.Join(s.dir, key+attemptsExt) }

// FailedDir is where given-up entries are moved (`spool/failed/`).
func (s *Spool) FailedDir() string { return filepath.Join(s.dir, failedDir) }

// Fail ends a failed attempt on the claimed entry (counted when it was
// claimed) and releases it. After MaxAttempts the payload is moved to
// FailedDir, out of Pending, and movedTo names where it now is (empty
// while it stays pending).
func (c *Claim) Fail() (movedTo string, err error) {
	defer func() { _ = c.lk.Release() }()
	if c.attempt < MaxAttempts {
		return "", nil
	}
	return c.quarantine()
}

// quarantine moves the claimed entry to FailedDir (the claim's lock is
// still held; the caller releases it).
func (c *Claim) quarantine() (string, error) {
	defer func() { _ = c.lk.Release() }()
	dst := filepath.Join(c.s.FailedDir(), c.key+pendingExt)
	if err := os.MkdirAll(c.s.FailedDir(), 0o700); err != nil {
		return "", fmt.Errorf("spool give up %s: %w", c.key, err)
	}
	if err := c.lk.Commit(func() error { return os.Rename(c.s.pendingPath(c.key), dst) }); err != nil {
		return "", fmt.Errorf("spool give up %s: %w", c.key, err)
	}
	_ = os.Remove(c.s.attemptsPath(c.key))
	return dst, nil
}
