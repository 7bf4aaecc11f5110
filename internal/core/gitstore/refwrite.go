package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Refs are written the way git writes them, not through go-git's storage:
// go-git truncates a ref file and then writes it, so a process killed in
// between leaves an empty ref and the history it named unreachable (a
// SIGKILL during `checkpoint create` lost every checkpoint that way). Here
// the new value goes to NAME.lock (created exclusively, which is also
// git's lock: git and agentx never update one ref at once), is synced and
// renamed over the ref, and the change is appended to the ref's reflog, so
// `git reflog` and `sync --recover` can find what the ref named before.

// ErrRefLocked is a ref whose NAME.lock another process holds.
var ErrRefLocked = errors.New("the ref is locked by another process")

// A NAME.lock is held for milliseconds (git's and ours alike). Ours is
// also flock'ed while held, so one nobody flocks belongs to git or to a
// killed process: past unlockedStale it is taken over (a SIGKILLed
// `checkpoint create` or sync must not block every later one). One that
// is flocked belongs to a live agentx process: it is waited for, up to
// refLockWait. Past heldStale any lock is taken to be left behind.
const (
	unlockedStale = time.Second
	heldStale     = 2 * time.Minute
)

// refLockWait is how long an update waits for a live holder (a variable
// for tests).
var refLockWait = 3 * time.Second

// refDir is the git directory ref name lives in: the common one, shared
// by every work tree, but for refs/worktree/ (the work tree's own).
func (r *Repo) refDir(name string) string {
	if strings.HasPrefix(name, "refs/worktree/") {
		return r.GitDir
	}
	return r.CommonDir
}

// refPath is where the loose ref name lives.
func (r *Repo) refPath(name string) string {
	return filepath.Join(r.refDir(name), filepath.FromSlash(name))
}

// updateRef points name at h, only while it holds old when check is set
// (ZeroHash: does not exist).
func (r *Repo) updateRef(name string, h Hash, old Hash, check bool, msg string) error {
	if !strings.HasPrefix(name, "refs/") || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") {
		return fmt.Errorf("update ref %s: not a ref name agentx writes", name)
	}
	if err := r.regularRef(name); err != nil {
		return err
	}
	p := r.refPath(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	lockPath := p + ".lock"
	f, err := createRefLock(lockPath)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("update ref %s: %w (%s exists; if no git or agentx process runs, remove it)", name, ErrRefLocked, lockPath)
	}
	if err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	done := false
	defer func() {
		if !done {
			_ = f.Close()
			_ = os.Remove(lockPath)
		}
	}()
	cur, err := r.Ref(name)
	if err != nil {
		return err
	}
	if check && cur != old {
		return fmt.Errorf("update ref %s: %w", name, ErrRefMoved)
	}
	if _, err := f.WriteString(h.String() + "\n"); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	if err := os.Rename(lockPath, p); err != nil {
		_ = os.Remove(lockPath)
		done = true
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	done = true
	// A lost reflog line costs a recovery source, never the ref.
	_ = r.appendReflog(name, cur, h, msg)
	return nil
}

// createRefLock creates lockPath exclusively and flocks it, waiting for a
// live holder up to refLockWait and taking over a stale lock.
func createRefLock(lockPath string) (*os.File, error) {
	deadline := time.Now().Add(refLockWait)
	for {
		f, err := os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			// Marks the lock as a live process's (released by the kernel
			// when the process dies, however it dies).
			tryFlock(f)
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if staleRefLockFile(lockPath) {
			_ = os.Remove(lockPath)
			continue
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// staleRefLockFile reports whether the lock at lockPath was left behind:
// no process flocks it and it is older than unlockedStale, or it is older
// than heldStale.
func staleRefLockFile(lockPath string) bool {
	f, err := os.OpenFile(lockPath, os.O_RDONLY|oNoFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	age := time.Since(fi.ModTime())
	if age > heldStale {
		return true
	}
	if age < unlockedStale {
		return false
	}
	if !tryFlock(f) {
		return false // a live agentx process holds it
	}
	unflock(f)
	return true
}

// appendReflog adds "OLD NEW NAME <EMAIL> TIME +0000\tMSG" to the ref's
// log, as git does.
func (r *Repo) appendReflog(name string, old, h Hash, msg string) error {
	p := filepath.Join(r.refDir(name), "logs", filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	msg = strings.Map(func(c rune) rune {
		if c == '\n' || c == '\t' {
			return ' '
		}
		return c
	}, msg)
	_, err = fmt.Fprintf(f, "%s %s agentx <agentx@localhost> %d +0000\t%s\n", old, h, time.Now().Unix(), msg)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ClearStaleRefLock removes the lock of ref name when a process that died
// left it (a git fetch killed at a hook's deadline leaves
// refs/remotes/origin/agentx/state.lock, after which every fetch fails
// with "cannot lock ref" for good). It reports whether it removed one; a
// lock a live process may hold is left alone.
func (r *Repo) ClearStaleRefLock(name string) (bool, error) {
	lockPath := r.refPath(name) + ".lock"
	if _, err := os.Lstat(lockPath); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	if !staleRefLockFile(lockPath) {
		return false, nil
	}
	if err := os.Remove(lockPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("remove the stale %s: %w", lockPath, err)
	}
	return true, nil
}

// RefLocked reports whether ref name's lock file exists.
func (r *Repo) RefLocked(name string) bool {
	_, err := os.Lstat(r.refPath(name) + ".lock")
	return err == nil
}
