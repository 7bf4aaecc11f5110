// Package atomicfile owns how state files reach the disk: atomic
// replacement (temporary file in the same directory, fsync, rename, fsync of
// the directory), the locked read-modify-write every state file goes
// through, the clean-up of a dead writer's temporaries, and the repair of a
// torn last line before an append to a log. It knows nothing of the files'
// format; the JSON layout and codec live in package jsonfile.
package atomicfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/process"
)

// Options tunes Write.
type Options struct {
	// Perm is the mode of a new file (default 0o644).
	Perm fs.FileMode
	// Commit, when set, performs the final step: it is called with the
	// rename that replaces the file, after the new content is durable. The
	// lock package's Lock.Commit checks that the lock is still ours and
	// renames while holding the directory's guard, so a holder that was
	// paused past the stale threshold can neither overwrite the work of the
	// process that took over nor be taken over between check and rename.
	Commit func(rename func() error) error
	// NoSync skips the fsyncs (tests and throwaway files only).
	NoSync bool
	// ClearDead first removes the temporaries of path that killed writers
	// left (RemoveDeadTemps). It reads the directory, so it is for files
	// written rarely: outside .agentx/ (host settings, git hooks), where
	// no verify --repair comes by and a killed setup would otherwise leave
	// `.settings.json.tmp-…` in the user's repository for good, and init's
	// files, written before a .gitignore hides temporaries.
	ClearDead bool
}

// Write replaces path with data so that a reader sees either the old or the
// new content in full, and a crash at any instant leaves one of them.
func Write(path string, data []byte, opt Options) (err error) {
	dir := filepath.Dir(path)
	if opt.Perm == 0 {
		opt.Perm = 0o644
	}
	if opt.ClearDead {
		RemoveDeadTemps(path)
	}
	tmpName, err := newTemp(path, data, opt)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmpName)
		}
	}()
	rename := func() error {
		if err := os.Rename(tmpName, path); err != nil {
			return fmt.Errorf("replace %s: %w", path, err)
		}
		return nil
	}
	if opt.Commit != nil {
		err = opt.Commit(rename)
	} else {
		err = rename()
	}
	if err != nil {
		return err
	}
	if !opt.NoSync {
		syncDir(dir)
	}
	return nil
}

// newTemp creates path's temporary, fills it with data (fill) and returns
// its name; on a failure nothing is left.
//
// An executable (any x bit in opt.Perm: a git hook) is written holding
// syscall.ForkLock for reading, so no process this one starts meanwhile
// inherits the temporary open for writing: until such a child execs, its
// copy of the descriptor makes every exec of the file fail with ETXTBSY,
// "text file busy" (golang/go#22315), and git runs the hook just written.
// A process that writes a hook in one goroutine while another starts a
// program is exposed: the test binaries, which run commands in process
// side by side, hit it (a fake git, written the same way since).
func newTemp(path string, data []byte, opt Options) (string, error) {
	if opt.Perm&0o111 != 0 {
		syscall.ForkLock.RLock()
		defer syscall.ForkLock.RUnlock()
	}
	tmp, err := createTemp(path)
	if err != nil {
		return "", err
	}
	if err := fill(tmp, data, opt); err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// createTemp creates path's temporary beside it, creating the directory
// when it is missing.
func createTemp(path string) (*os.File, error) {
	announceCreate()
	dir, pattern := filepath.Dir(path), TempPattern(filepath.Base(path))
	tmp, err := os.CreateTemp(dir, pattern)
	if errors.Is(err, fs.ErrNotExist) {
		if mkErr := os.MkdirAll(dir, 0o755); mkErr != nil {
			return nil, fmt.Errorf("create directory %s: %w", dir, mkErr)
		}
		tmp, err = os.CreateTemp(dir, pattern)
	}
	if err != nil {
		return nil, fmt.Errorf("create temporary file for %s: %w", path, err)
	}
	return tmp, nil
}

// TempPattern is the os.CreateTemp pattern of a temporary for the file
// named base: `.BASE.tmp-PID-*`. The writer's process id in the name lets
// `verify --repair` remove the temporary of a killed writer at once, its
// death proven (TempPID), instead of waiting for it to age.
func TempPattern(base string) string {
	return "." + base + ".tmp-" + strconv.Itoa(os.Getpid()) + "-*"
}

// TempPID is the process id a temporary's name carries (ok false for one
// written by an older agentx or another tool: `.BASE.tmp-RANDOM`).
func TempPID(name string) (int, bool) {
	i := strings.LastIndex(name, ".tmp-")
	if i < 0 {
		return 0, false
	}
	pid, _, ok := strings.Cut(name[i+len(".tmp-"):], "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

// fill writes data to the temporary, makes it durable and closes it. On a
// failure the close error is moot: the temporary is removed anyway.
func fill(tmp *os.File, data []byte, opt Options) error {
	name := tmp.Name()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Chmod(opt.Perm); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("chmod %s: %w", name, err)
	}
	if !opt.NoSync {
		if err := tmp.Sync(); err != nil {
			_ = tmp.Close()
			return fmt.Errorf("fsync %s: %w", name, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", name, err)
	}
	return nil
}

// lostRetries is how many times WithLock runs a read-modify-write again
// after its lock was taken over mid-way.
const lostRetries = 3

// WithLock runs fn while holding path's lock: the one way a state file is
// read, changed and written (fn passes lk.Commit as Options.Commit).
// When the lock was won from a holder that died or stalled, the temporary
// files it left beside path are removed first; nothing else ever would.
// When the lock was taken over while fn held it, Commit refused the write
// and fn runs again on the fresh file, so no update is lost; after
// lostRetries more losses it fails with LOCK_TIMEOUT.
func WithLock(ctx context.Context, locks *lock.Locker, path string, fn func(lk *lock.Lock) error) error {
	for attempt := 0; ; attempt++ {
		err := locks.With(ctx, path, func(lk *lock.Lock) error {
			if lk.TookOver() {
				RemoveTemps(path)
			}
			return fn(lk)
		})
		if !errors.Is(err, lock.ErrLost) {
			return err
		}
		if attempt == lostRetries {
			return errcode.Wrap(errcode.LockTimeout, err, "update %s", path)
		}
	}
}

// RemoveTemps deletes the temporary files Write leaves for path when a
// writer dies between creating and renaming one. Call it only while holding
// path's lock, after a takeover: live writers only create temporaries under
// the lock, so any found then are a dead writer's. A temporary that cannot
// be removed is left for the next takeover.
func RemoveTemps(path string) {
	for _, m := range temps(path) {
		_ = os.Remove(m)
	}
}

// temps lists the temporaries beside path that Write and older agentx
// releases name after it: `.BASE.tmp-*`.
func temps(path string) []string {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"))
	return matches
}

// RemoveDeadTemps deletes the temporaries of path whose name carries the
// process id of a writer that no longer runs (TempPattern): a live
// writer's, and any without a process id (an older agentx's, another
// tool's), stay. Unlike RemoveTemps it needs no lock, so a file written
// without one can be cleared. A writer in another pid namespace (a
// container sharing the repository) looks dead from here: its rename
// then fails and it says so, and the file keeps its old content. Errors
// are ignored: what cannot be removed is tried again by the next write.
func RemoveDeadTemps(path string) {
	for _, m := range temps(path) {
		if pid, ok := TempPID(filepath.Base(m)); ok && pid != os.Getpid() && !alive(pid) {
			_ = os.Remove(m)
		}
	}
}

// alive is process.Alive (a variable for tests).
var alive = process.Alive

// Terminated returns line (f must be open for reading too), preceded by a
// newline when the log's last line was cut short (a crash or a full disk
// mid-append): glued to the torn line, the new record would be lost with
// it. Logs appended with O_APPEND (events, the recall journal) write what
// it returns.
func Terminated(f *os.File, line []byte) []byte {
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return line
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], info.Size()-1); err != nil || last[0] == '\n' {
		return line
	}
	return append([]byte{'\n'}, line...)
}

// EachLine calls fn for each line of a log's content (without its
// newline), with its byte offset and 1-based number; terminated is false
// for a last line with no newline, which a crash mid-append leaves (see
// Terminated).
func EachLine(data []byte, fn func(line []byte, offset int64, no int, terminated bool)) {
	var off int64
	for no := 1; len(data) > 0; no++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			fn(data, off, no, false)
			return
		}
		fn(data[:i], off, no, true)
		off += int64(i) + 1
		data = data[i+1:]
	}
}
