//go:build unix

package memory

import (
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// rowFile is an issue file opened to read rows at their offsets: on Unix
// a bare descriptor, four system calls a file (open, the regular-file
// check, one pread a row, close) where an *os.File took six (its poller
// registration, which a regular file refuses, and ReadAt's second pread
// to learn that a row at the end of the file ended it). A search reads
// twenty rows from as many files.
type rowFile struct {
	fd   int
	stat FileStat
}

// openRowFile opens path for reading if it is a regular file (as
// atomicfile.OpenRegular: O_NONBLOCK, so a FIFO put there does not block)
// and not a symlink (O_NOFOLLOW: the stat taken is then the file's own,
// what an lstat of path gives, FileStats; a symlinked issue file's rows
// are read by position, entryAt, as an unreadable file's are).
func openRowFile(path string) *rowFile { return openRowFileAt(unix.AT_FDCWD, path, true) }

// openRowFileAt is openRowFile of name in the directory dirfd; through a
// symlink unless noFollow.
func openRowFileAt(dirfd int, name string, noFollow bool) *rowFile {
	flags := unix.O_RDONLY | unix.O_NONBLOCK
	if noFollow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := atomicfile.OpenFd(dirfd, name, flags)
	if err != nil {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		_ = unix.Close(fd) // read-only
		return nil
	}
	return &rowFile{fd: fd, stat: FileStat{Size: st.Size, Mod: st.Mtim.Nano(), Change: st.Ctim.Nano(), Ino: uint64(st.Ino), OK: true}}
}

// readAt reads len(buf) bytes at off, fewer only where the file ends (a
// regular file's pread is short only there).
func (f *rowFile) readAt(buf []byte, off int64) (int, error) {
	for {
		k, err := unix.Pread(f.fd, buf, off)
		if err == unix.EINTR {
			continue
		}
		return max(k, 0), err
	}
}

func (f *rowFile) close() { _ = unix.Close(f.fd) } // read-only

// rowDir is the store's directory, opened at a view's first row: each
// issue file is opened relative to it, so the kernel walks one name a
// file rather than the whole path again (six names in the benchmark's
// store, as many in a checkout's .agentx/memory); a search opens twenty.
// Where it cannot be opened the files are opened by path, as before.
type rowDir struct {
	fd    int
	tried bool
}

func (d *rowDir) openIssue(dir, name string) *rowFile {
	if !d.tried {
		d.tried, d.fd = true, -1
		if fd, err := atomicfile.OpenFd(unix.AT_FDCWD, dir, unix.O_RDONLY|unix.O_DIRECTORY); err == nil {
			d.fd = fd
		}
	}
	if d.fd < 0 {
		return openRowFile(filepath.Join(dir, name))
	}
	return openRowFileAt(d.fd, name, true)
}

func (d *rowDir) close() {
	if d.tried && d.fd >= 0 {
		_ = unix.Close(d.fd) // read-only
	}
	d.tried, d.fd = false, -1
}

// readSmall is atomicfile.ReadRegular (limit bytes at most) for the small
// file every search reads (the freshness record, fresh.go): open, fstat,
// one read and close, where an *os.File took seven system calls (its
// poller's registration, two fstats, a second read to see the end). A
// regular file's read returns all it asked for up to the file's end: one
// of its size and a byte more reads it whole, or shows it grew since the
// fstat (or read short: a network file system), and then the general
// reader reads it.
func readSmall(path string, limit int64) ([]byte, error) {
	f := openRowFileAt(unix.AT_FDCWD, path, false)
	if f == nil {
		return atomicfile.ReadRegular(path, limit)
	}
	defer f.close()
	if f.stat.Size > limit {
		return atomicfile.ReadRegular(path, limit)
	}
	buf := make([]byte, f.stat.Size+1)
	k, err := f.readAt(buf, 0)
	if err != nil || int64(k) != f.stat.Size {
		return atomicfile.ReadRegular(path, limit)
	}
	return buf[:k], nil
}
