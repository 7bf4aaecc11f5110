// Package lock owns cross-process exclusion on state files: a `<file>.lock`
// created with O_CREAT|O_EXCL that interoperates with the TypeScript and
// PowerShell implementations, plus an in-process mutex per path so
// goroutines of one process never race on the lock file.
//
// It fixes the five faults of the old TypeScript lock code:
// stale takeover admits one new holder (the stale file is renamed aside and
// checked before anyone creates a new one); release removes the lock only
// while it is still ours; an empty or unparsable lock ages out by mtime; a
// holder can check it still owns the lock just before it commits a write;
// and nothing here ever treats a file it cannot read as absent.
package lock

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/process"
)

// Defaults of the reference implementation (SPEC section 9.5).
const (
	DefaultStaleAfter = 30 * time.Second
	DefaultWait       = 5 * time.Second
)

// Options tune a Locker. The zero value is the reference behaviour.
type Options struct {
	// StaleAfter is the age past which another process may take a lock over
	// (default 30 s; $AGENTX_LOCK_STALE_MS overrides it in the CLI).
	StaleAfter time.Duration
	// Wait is the total time Acquire may wait (default 5 s).
	Wait time.Duration
	// Agent is written into lock files for diagnostics.
	Agent string
	// Clock is used for lock timestamps and ages (default: wall clock).
	Clock clock.Clock
	// BeforeAcquire, when set, is called before every acquisition: the
	// CLI arms its signal handler there when it sets it up on demand, so
	// that a signal lets a locked write finish and release its lock.
	BeforeAcquire func()
}

// Locker hands out locks. One Locker should serve a whole process: its
// in-process mutexes are what keep the process's goroutines off each other.
type Locker struct {
	opt      Options
	host     string
	pid      int
	mu       sync.Mutex
	inproc   map[string]*pathMutex
	sleep    func(context.Context, time.Duration) error
	randNano func(n int64) int64
	// stats: the time spent waiting for locks and the waits that timed out
	// (the metrics of a hook or command, read once at its end).
	waited   atomic.Int64
	timeouts atomic.Int64
	polls    atomic.Int64 // pauses for a lock another holder had
}

// Stats returns how long this Locker's acquisitions waited in all and how
// many of them gave up at the wait limit.
func (l *Locker) Stats() (waited time.Duration, timeouts int) {
	return time.Duration(l.waited.Load()), int(l.timeouts.Load())
}

// Polls returns how many times this Locker's acquisitions paused because
// another holder had the lock: zero means no acquisition waited at all,
// however long the machine took (what tests check instead of time).
func (l *Locker) Polls() int { return int(l.polls.Load()) }

type pathMutex struct {
	ch   chan struct{} // capacity 1: a mutex that a context can abandon
	refs int
}

// New returns a Locker.
func New(opt Options) *Locker {
	if opt.StaleAfter <= 0 {
		opt.StaleAfter = DefaultStaleAfter
	}
	if opt.Wait <= 0 {
		opt.Wait = DefaultWait
	}
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.Agent == "" {
		opt.Agent = "agentx"
	}
	host, _ := os.Hostname()
	return &Locker{
		opt:      opt,
		host:     host,
		pid:      os.Getpid(),
		inproc:   map[string]*pathMutex{},
		sleep:    sleepCtx,
		randNano: func(n int64) int64 { return mrand.Int64N(n) },
	}
}

// Content is what a lock file holds. `timestamp` is what TypeScript reads
// and `created` what PowerShell reads (it deletes a lock without it); we
// write both. `host` and `nonce` are ours: the host lets a dead pid be
// recognised safely, the nonce makes every lock's content unique so a
// takeover or release can tell our lock from a newer one.
type Content struct {
	PID       int    `json:"pid"`
	Timestamp string `json:"timestamp,omitempty"`
	Created   string `json:"created,omitempty"`
	Agent     string `json:"agent,omitempty"`
	Host      string `json:"host,omitempty"`
	Nonce     string `json:"nonce,omitempty"`
}

// ParseContent reads a lock file's content. It never fails on junk: it
// reports ok=false and the caller falls back to the file's mtime.
func ParseContent(data []byte) (c Content, acquired time.Time, ok bool) {
	if err := json.Unmarshal(data, &c); err != nil {
		return Content{}, time.Time{}, false
	}
	ts := c.Timestamp
	if ts == "" {
		ts = c.Created
	}
	t, err := clock.Parse(ts)
	if err != nil {
		return c, time.Time{}, false
	}
	return c, t, true
}

// Lock is a held lock.
type Lock struct {
	l        *Locker
	target   string
	path     string
	content  []byte
	released bool
	pm       *pathMutex
	key      string
	tookOver bool
}

// TookOver reports whether this lock was won by taking over a stale one:
// the previous holder died or stalled mid-write, so the caller may clean up
// what such a writer leaves (temporary files).
func (lk *Lock) TookOver() bool { return lk.tookOver }

// Path is the lock file's path.
func (lk *Lock) Path() string { return lk.path }

// PathFor returns the lock file guarding target.
func PathFor(target string) string { return target + ".lock" }

// Acquire takes the lock guarding target (the lock file is target+".lock"),
// waiting up to the configured budget. It fails with LOCK_TIMEOUT naming the
// file, the holder and the lock's age.
func (l *Locker) Acquire(ctx context.Context, target string) (*Lock, error) {
	return l.acquire(ctx, target, nil)
}

func (l *Locker) acquire(ctx context.Context, target string, b *Batch) (lk *Lock, err error) {
	if l.opt.BeforeAcquire != nil {
		l.opt.BeforeAcquire()
	}
	began := time.Now()
	defer func() {
		l.waited.Add(int64(time.Since(began)))
		if errcode.CodeOf(err) == errcode.LockTimeout {
			l.timeouts.Add(1)
		}
	}()
	key, err := filepath.Abs(target)
	if err != nil {
		key = target
	}
	ctx, cancel := context.WithTimeout(ctx, l.opt.Wait)
	defer cancel()

	pm := l.pathMutex(key)
	// A free turn is taken whatever the deadline, as acquireFile's first
	// attempt is: one select with both ready picks at random, and a
	// goroutine descheduled past a short deadline (spool.Claim waits
	// 100 ms) would be refused a free lock every other time.
	select {
	case pm.ch <- struct{}{}:
	default:
		select {
		case pm.ch <- struct{}{}:
		case <-ctx.Done():
			l.dropPathMutex(key, pm)
			return nil, l.timeoutError(target, nil)
		}
	}
	lk, err = l.acquireFile(ctx, target, b)
	if err != nil {
		<-pm.ch
		l.dropPathMutex(key, pm)
		return nil, err
	}
	lk.pm, lk.key = pm, key
	return lk, nil
}

func (l *Locker) pathMutex(key string) *pathMutex {
	l.mu.Lock()
	defer l.mu.Unlock()
	pm := l.inproc[key]
	if pm == nil {
		pm = &pathMutex{ch: make(chan struct{}, 1)}
		l.inproc[key] = pm
	}
	pm.refs++
	return pm
}

func (l *Locker) dropPathMutex(key string, pm *pathMutex) {
	l.mu.Lock()
	defer l.mu.Unlock()
	pm.refs--
	if pm.refs == 0 {
		delete(l.inproc, key)
	}
}

func (l *Locker) newContent() ([]byte, error) {
	var nb [8]byte
	if _, err := rand.Read(nb[:]); err != nil {
		return nil, err
	}
	now := clock.Format(l.opt.Clock.Now())
	return json.Marshal(Content{
		PID: l.pid, Timestamp: now, Created: now, Agent: l.opt.Agent,
		Host: l.host, Nonce: hex.EncodeToString(nb[:]),
	})
}

func (l *Locker) acquireFile(ctx context.Context, target string, b *Batch) (*Lock, error) {
	path := PathFor(target)
	delay := 500 * time.Microsecond
	var last *holder
	tookOver := false
	for {
		// While the lock is visibly held, waiting costs one stat, not the
		// temporary file a create stages; the link in createExclusive is
		// still what decides between racers.
		if _, serr := os.Lstat(path); errors.Is(serr, fs.ErrNotExist) {
			var content []byte
			var ok bool
			var err error
			if b != nil {
				content, ok, err = b.link(path)
			} else if content, err = l.newContent(); err == nil {
				ok, err = createExclusive(path, content)
			}
			if err != nil {
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
			if ok {
				removeStaleStaging(path, l.opt.StaleAfter)
				return &Lock{l: l, target: target, path: path, content: content, tookOver: tookOver}, nil
			}
		}
		h, err := l.inspect(path)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if h == nil {
			continue // released between our create and our read: try again at once
		}
		last = h
		if h.stale {
			if l.takeOver(ctx, path, h) {
				tookOver = true
				continue
			}
		}
		// Poll with jitter: many short waits early (the common hold is a
		// millisecond or two), growing to at most 50 ms, so contended writers
		// are served quickly and do not march in lockstep.
		d := delay/2 + time.Duration(l.randNano(int64(delay)))
		l.polls.Add(1)
		if err := l.sleep(ctx, d); err != nil {
			return nil, l.timeoutError(target, last)
		}
		if delay < 50*time.Millisecond {
			delay = delay * 3 / 2
		}
	}
}

// createExclusive creates path with content; ok=false when it exists.
// The lock must appear with its content already in it: PowerShell deletes
// a lock file it cannot parse, so an empty one (between an O_EXCL create
// and the write) would be deleted under its holder and taken twice. The
// content is written to a temporary file first and hard-linked into
// place, which fails like O_EXCL when the lock exists. Where hard links
// are not supported, it falls back to O_EXCL and write.
func createExclusive(path string, content []byte) (bool, error) {
	tmp, err := stageLockContent(filepath.Dir(path), filepath.Base(path), content)
	if err != nil {
		return false, err
	}
	// After the link the temporary is a second name for the lock file, so
	// it goes whatever happened; failing to remove it costs a stray file.
	defer func() { _ = os.Remove(tmp) }()
	err = os.Link(tmp, path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		return false, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	return createOpenExclusive(path, content)
}

// stageLockContent writes content to a new temporary `.<base>.tmp-*` in
// dir (made if missing), the name removeStaleStaging sweeps when a writer
// dies before removing it, and returns its path.
func stageLockContent(dir, base string, content []byte) (string, error) {
	pattern := "." + base + ".tmp-*"
	tmp, err := os.CreateTemp(dir, pattern)
	if errors.Is(err, fs.ErrNotExist) {
		if mkErr := os.MkdirAll(dir, 0o755); mkErr != nil {
			return "", mkErr
		}
		tmp, err = os.CreateTemp(dir, pattern)
	}
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(content)
	merr := tmp.Chmod(0o644)
	cerr := tmp.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// removeStaleStaging removes the staging temporaries of the locks in
// path's directory (`.X.lock.tmp-*`) that a writer killed between staging
// and clean-up left behind. A live staging file exists for microseconds;
// one older than the lock's stale threshold belongs to a dead process.
// The directory is swept once per process: a command that takes thousands
// of locks in one directory (a checkpoint restore, a rebuild) would
// otherwise read the whole directory at every lock.
func removeStaleStaging(path string, staleAfter time.Duration) {
	dir, base := filepath.Split(path)
	pattern := "." + globEscape(base) + ".tmp-*"
	if strings.HasSuffix(base, lockSuffix) {
		if _, done := stagingSwept.LoadOrStore(dir, true); done {
			return
		}
		pattern = ".*" + lockSuffix + ".tmp-*"
	}
	matches, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return
	}
	for _, m := range matches {
		if info, err := os.Lstat(m); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) > staleAfter {
			_ = os.Remove(m)
		}
	}
}

// lockSuffix ends every lock file's name (issue-3.json.lock).
const lockSuffix = ".lock"

// stagingSwept holds the directories whose staging temporaries this
// process has swept.
var stagingSwept sync.Map

// globEscape quotes the pattern characters of a file name for filepath.Glob.
func globEscape(name string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	return r.Replace(name)
}

// createOpenExclusive is createExclusive without hard links.
func createOpenExclusive(path string, content []byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	_, werr := f.Write(content)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(path)
		return false, errors.Join(werr, cerr)
	}
	return true, nil
}

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

// ErrLost reports that a lock was taken over while we held it (we were
// paused past the stale threshold). The write it guarded must not happen.
var ErrLost = errors.New("lock was taken over by another process")

// Check reports whether the lock file still holds our content. Call it just
// before committing a write; Commit does it under the directory's guard.
func (lk *Lock) Check() error {
	data, _, err := readLockFile(lk.path)
	if err != nil || !bytes.Equal(data, lk.content) {
		return fmt.Errorf("%s: %w", lk.path, ErrLost)
	}
	return nil
}

// Commit runs rename (the last step of an atomic write) only while the lock
// is still ours, holding the directory's guard from the check to the
// rename: no takeover can happen between them. Use it as
// atomicfile.Options.Commit.
func (lk *Lock) Commit(rename func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), lk.l.opt.Wait)
	defer cancel()
	if g, err := lockGuard(ctx, filepath.Dir(lk.path)); err == nil {
		defer g.unlock()
	}
	if err := lk.Check(); err != nil {
		return err
	}
	return rename()
}

// Release removes the lock file if, and only if, it is still ours. The
// check and the removal happen under the directory's guard, so a takeover
// cannot slip between them: a holder paused past the threshold whose lock
// was taken over leaves the new holder's lock in place.
func (lk *Lock) Release() error {
	if lk.released {
		return nil
	}
	lk.released = true
	defer func() {
		if lk.pm != nil {
			<-lk.pm.ch
			lk.l.dropPathMutex(lk.key, lk.pm)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), lk.l.opt.Wait)
	defer cancel()
	if g, err := lockGuard(ctx, filepath.Dir(lk.path)); err == nil {
		defer g.unlock()
	}
	data, _, err := readLockFile(lk.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotLock) {
			return fmt.Errorf("%s: %w", lk.path, ErrLost)
		}
		return fmt.Errorf("release %s: %w", lk.path, err)
	}
	if !bytes.Equal(data, lk.content) {
		return fmt.Errorf("%s: %w", lk.path, ErrLost)
	}
	if err := os.Remove(lk.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("release %s: %w", lk.path, err)
	}
	return nil
}

// With runs fn while holding the lock on target.
func (l *Locker) With(ctx context.Context, target string, fn func(*Lock) error) error {
	lk, err := l.Acquire(ctx, target)
	if err != nil {
		return err
	}
	ferr := fn(lk)
	rerr := lk.Release()
	if ferr != nil {
		return ferr
	}
	if rerr != nil && errors.Is(rerr, ErrLost) {
		// The write (if any) was already refused by Check; nothing to undo.
		return nil
	}
	return rerr
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errNotLock marks a lock path that holds something other than a regular
// file.
var errNotLock = errors.New("not a regular file")

// readLockFile reads a lock file without following a symlink and without
// blocking on a FIFO (O_NONBLOCK makes the open return at once; the fstat
// then tells what was opened). A lock file is tiny: more than 64 KB is
// not one. info is set for errNotLock.
func readLockFile(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|oNoFollow, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENXIO) {
			info, lerr := os.Lstat(path)
			if lerr != nil {
				return nil, nil, lerr
			}
			return nil, info, fmt.Errorf("%s: %w (%s)", path, errNotLock, info.Mode().Type())
		}
		return nil, nil, err
	}
	defer func() { _ = f.Close() }() // read-only: a close error loses nothing
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, info, fmt.Errorf("%s: %w (%s)", path, errNotLock, info.Mode().Type())
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, 64<<10)); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), info, nil
}

// WithEnv is o with the environment's test and tuning overrides:
// $AGENTX_LOCK_STALE_MS, else staleSeconds ([clarify] lock_stale_seconds)
// when positive, sets StaleAfter; $AGENTX_LOCK_WAIT_MS sets Wait.
func (o Options) WithEnv(getenv func(string) string, staleSeconds int) Options {
	if ms, err := strconv.Atoi(getenv("AGENTX_LOCK_STALE_MS")); err == nil && ms > 0 {
		o.StaleAfter = time.Duration(ms) * time.Millisecond
	} else if staleSeconds > 0 {
		o.StaleAfter = time.Duration(staleSeconds) * time.Second
	}
	if ms, err := strconv.Atoi(getenv("AGENTX_LOCK_WAIT_MS")); err == nil && ms > 0 {
		o.Wait = time.Duration(ms) * time.Millisecond
	}
	return o
}
