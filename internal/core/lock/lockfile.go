package lock

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The lock file on disk: created whole (staged, then linked into place,
// so that no reader ever sees it empty), its stale staging files swept,
// and read back without following links or blocking on a FIFO.

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
	var pattern string
	if strings.HasSuffix(base, lockSuffix) {
		if _, done := stagingSwept.LoadOrStore(dir, true); done {
			return
		}
		pattern = ".*" + lockSuffix + ".tmp-*"
	} else {
		pattern = "." + globEscape(base) + ".tmp-*"
	}
	// os.ReadDir and Match, as filepath.Glob does, without Glob's stat of
	// the directory and the poller's fcntl pairs its os.Open pays.
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if ok, err := filepath.Match(pattern, e.Name()); err != nil || !ok {
			continue
		}
		m := filepath.Join(dir, e.Name())
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
	if !strings.ContainsAny(name, `\*?[`) {
		return name
	}
	var b strings.Builder
	for _, c := range []byte(name) {
		if c == '\\' || c == '*' || c == '?' || c == '[' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
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
