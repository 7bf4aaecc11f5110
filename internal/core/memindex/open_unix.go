//go:build unix

package memindex

import (
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
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return nil, nil, fileKey{}, err
	}
	// The mapping outlives the descriptor; a read-only close loses nothing.
	defer func() { _ = f.Close() }()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, nil, fileKey{}, err
	}
	id := fileKey{ok: true, dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
	if known != nil {
		if ix, ok := known(id); ok {
			return ix, nil, id, nil
		}
	}
	size := st.Size
	if size < headerSize || size > 1<<40 {
		return nil, nil, fileKey{}, ErrFormat
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
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
