//go:build linux

package memory

import (
	"sync"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"golang.org/x/sys/unix"
)

// direntBufs are getdents buffers: the pending directory holds a few
// names (the freshness record, the overlay, a writer's marker now and
// then), listed at every search.
var direntBufs = sync.Pool{New: func() any { return new([4096]byte) }}

// listNames lists the names in dir (not "." and ".."), unsorted, with a
// bare descriptor: an *os.File cost a search its allocation, its cleanup's
// registration and the buffer Readdirnames makes (issue 35).
func listNames(dir string) ([]string, error) {
	fd, err := atomicfile.OpenFd(unix.AT_FDCWD, dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer func() { _ = unix.Close(fd) }() // read-only
	buf := direntBufs.Get().(*[4096]byte)
	defer direntBufs.Put(buf)
	var names []string
	for {
		k, err := unix.Getdents(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if k <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:k], -1, names)
	}
}
