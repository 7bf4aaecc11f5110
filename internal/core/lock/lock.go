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
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
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

// newContent is the content of a lock this process stages. The nonce only
// has to differ between locks (docs/formats.md): it comes from the
// runtime's generator (ChaCha8, seeded from the kernel's randomness at
// start), not crypto/rand, whose first use in a process maps the vDSO
// getrandom state and calls getrandom, about 0.02 ms of a clarify
// request's 3.5 ms for 8 bytes no one has to fail to guess.
func (l *Locker) newContent() ([]byte, error) {
	var nb [8]byte
	binary.LittleEndian.PutUint64(nb[:], mrand.Uint64())
	now := clock.Format(l.opt.Clock.Now())
	return Content{
		PID: l.pid, Timestamp: now, Created: now, Agent: l.opt.Agent,
		Host: l.host, Nonce: hex.EncodeToString(nb[:]),
	}.appendJSON(nil), nil
}

// appendJSON appends c as json.Marshal writes it (TestContentIsMarshal),
// without the reflection Marshal pays on a type's first use: every
// command that writes takes a lock.
func (c Content) appendJSON(b []byte) []byte {
	b = append(b, `{"pid":`...)
	b = strconv.AppendInt(b, int64(c.PID), 10)
	for _, m := range [...]struct{ key, v string }{
		{`,"timestamp":`, c.Timestamp}, {`,"created":`, c.Created}, {`,"agent":`, c.Agent},
		{`,"host":`, c.Host}, {`,"nonce":`, c.Nonce},
	} {
		if m.v != "" {
			b = append(b, m.key...)
			b = jsonfile.AppendMarshalString(b, m.v)
		}
	}
	return append(b, '}')
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
