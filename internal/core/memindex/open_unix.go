//go:build unix

package memindex

import (
	"fmt"
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// Open maps the index file read-only: a search touches only the pages of
// the terms and rows it needs. close unmaps it.
func Open(path string, verify bool) (ix *Index, closeFn func(), err error) {
	ix, closeFn, _, err = openMapped(path, verify, nil)
	return ix, closeFn, err
}

// fileKey is an open file's identity (Maps).
type fileKey struct {
	ok                 bool
	dev, ino           uint64
	size, mtime, ctime int64
}

// openKeyed is Open for Maps: known, given the file's identity, returns
// an index already mapped for it (and Open then returns it with a nil
// close, having mapped nothing).
func openKeyed(path string, known func(fileKey) (*Index, bool)) (*Index, func(), fileKey, error) {
	return openMapped(path, false, known)
}

func openMapped(path string, verify bool, known func(fileKey) (*Index, bool)) (*Index, func(), fileKey, error) {
	// A bare descriptor, as atomicfile.OpenRegular opens a file (O_NONBLOCK:
	// a FIFO put there does not block) and refuses what is not regular,
	// from the one fstat the identity needs anyway: an *os.File cost a
	// search two more system calls (its poller's registration, which a
	// regular file refuses, and the regular-file check's own fstat).
	fd, err := openFd(path)
	if err != nil {
		return nil, nil, fileKey{}, err
	}
	// The mapping outlives the descriptor; a read-only close loses nothing.
	defer func() { _ = unix.Close(fd) }()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, fileKey{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, nil, fileKey{}, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (mode %#o)", atomicfile.ErrNotRegular, st.Mode&unix.S_IFMT)}
	}
	id := keyOf(&st)
	if known != nil {
		if ix, ok := known(id); ok {
			return ix, nil, id, nil
		}
	}
	size := st.Size
	if size < headerSize || size > 1<<40 {
		return nil, nil, fileKey{}, ErrFormat
	}
	data, err := syscall.Mmap(fd, 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		ix, closeFn, err := openRead(path, verify)
		return ix, closeFn, fileKey{}, err
	}
	unmap := func() { _ = syscall.Munmap(data) }
	ix, err := Decode(data, verify)
	if err != nil {
		unmap()
		return nil, nil, fileKey{}, err
	}
	return ix, unmap, id, nil
}

// openFd opens path read-only, not blocking on a FIFO.
func openFd(path string) (int, error) {
	fd, err := atomicfile.OpenFd(unix.AT_FDCWD, path, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return fd, nil
}

// keyOf is the identity of the file st describes.
func keyOf(st *unix.Stat_t) fileKey {
	return fileKey{ok: true, dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// statKey is the identity of the regular file at path, from a stat
// (following a symlink, as the open does); false when it is not one.
func statKey(path string) (fileKey, bool) {
	var st unix.Stat_t
	for {
		err := unix.Stat(path, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			return fileKey{}, false
		}
		return keyOf(&st), true
	}
}
