//go:build unix

package memindex

import (
	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"syscall"
)

// Open maps the index file read-only: a search touches only the pages of
// the terms and rows it needs. close unmaps it.
func Open(path string, verify bool) (ix *Index, closeFn func(), err error) {
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	// The mapping outlives the descriptor; a read-only close loses nothing.
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := info.Size()
	if size < headerSize || size > 1<<40 {
		return nil, nil, ErrFormat
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return openRead(path, verify)
	}
	unmap := func() { _ = syscall.Munmap(data) }
	ix, err = Decode(data, verify)
	if err != nil {
		unmap()
		return nil, nil, err
	}
	return ix, unmap, nil
}
