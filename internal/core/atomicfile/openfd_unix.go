//go:build unix

package atomicfile

import "golang.org/x/sys/unix"

// OpenFd opens name (relative to the directory dirfd, or unix.AT_FDCWD)
// with open(2) and flags (O_CLOEXEC added), again when a signal cut it
// short: a bare descriptor, where an *os.File tries the poller (two fcntl
// pairs and an epoll_ctl that fails on a regular file or a directory) and
// gets a finalizer, for the descriptors hot paths open, use and close at
// once (a search's rows and index, a write's directory sync; issue 35).
func OpenFd(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
