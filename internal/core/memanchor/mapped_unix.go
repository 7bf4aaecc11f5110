//go:build unix

package memanchor

import (
	"golang.org/x/sys/unix"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// readMapped maps the regular file at path read-only for a reader's
// decoding (release unmaps it; nothing decoded may alias data after
// that): the state is about 1 byte in 1,000 of the store (95 KB at 100K
// observations), and a read into a new buffer was a page fault per 4 KB
// of fresh heap besides the copy, in a process that reads it once. A
// missing, non-regular, empty or oversized file is an error, as
// ReadRegular's; where mapping fails the file is read.
func readMapped(path string) (data []byte, release func(), err error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = unix.Close(fd) }() // read-only; the mapping outlives it
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size <= 0 || st.Size > atomicfile.StateLimit {
		return nil, nil, errShort
	}
	data, err = unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		data, err = atomicfile.ReadRegular(path, atomicfile.StateLimit)
		return data, func() {}, err
	}
	return data, func() { _ = unix.Munmap(data) }, nil
}
