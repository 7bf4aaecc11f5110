//go:build unix

package lock

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// spareName is the directory's spare lock file: the file of the last lock
// released there, kept under this name rather than removed, whose inode
// the next lock taken in the directory reuses (claimSpare). A lock costs
// a file created and one removed; on a filesystem that scans past
// recently freed inodes before it hands out a new one (ext4 without a
// journal) each creation cost 0.3-0.6 ms in the bench of issue 35, as
// much as the rest of the lock. The name holds `.lock.`, like a lock's
// staging file: never a lock to any tool, never committed nor kept by a
// checkpoint, left alone by verify.
const spareName = ".agentx.lock.spare"

// claimSpare stages content in the directory's spare lock file: renamed to
// a new staging name `.<base>.tmp-*` (one claimant wins), checked to be a
// regular 0644 file no other name links to and released less than half
// of staleAfter ago (the staging sweep, removeStaleStaging, removes
// staging files older than staleAfter: it must not take this one for a
// dead writer's), then rewritten. It returns the staging path, or "" when
// there is no spare to use (the caller creates a new file).
func claimSpare(dir, base string, content []byte, staleAfter time.Duration) string {
	name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
	if err := os.Rename(filepath.Join(dir, spareName), name); err != nil {
		return ""
	}
	f, err := os.OpenFile(name, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		_ = os.Remove(name)
		return ""
	}
	info, err := f.Stat()
	st, isStat := info.Sys().(*syscall.Stat_t)
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o644 || !isStat || st.Nlink != 1 ||
		time.Since(info.ModTime()) > staleAfter/2 {
		_ = f.Close()
		_ = os.Remove(name)
		return ""
	}
	_, werr := f.WriteAt(content, 0)
	terr := f.Truncate(int64(len(content)))
	cerr := f.Close()
	if werr != nil || terr != nil || cerr != nil {
		_ = os.Remove(name)
		return ""
	}
	return name
}

// keepSpare makes the released lock file at path the directory's spare
// instead of removing it, when no other name links to it (a batch's locks
// share one file), dated now (claimSpare's freshness); false when it did
// not. Call it holding the directory's guard.
func keepSpare(path string) bool {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Nlink != 1 {
		return false
	}
	now := time.Now()
	if os.Chtimes(path, now, now) != nil {
		return false
	}
	return os.Rename(path, filepath.Join(filepath.Dir(path), spareName)) == nil
}
