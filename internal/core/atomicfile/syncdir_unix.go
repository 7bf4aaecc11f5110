//go:build unix

package atomicfile

import "golang.org/x/sys/unix"

// syncDir makes the rename durable. Errors are ignored: some filesystems
// refuse fsync on directories, and the rename itself has already happened.
// The directory is opened with open(2), not os.Open: an *os.File tries the
// descriptor with the poller (two fcntl pairs and an epoll_ctl that fails)
// and gets a finalizer, for a descriptor that is synced and closed at once
// (every write of a ledger, issue 35).
func syncDir(dir string) {
	var fd int
	var err error = unix.EINTR
	for err == unix.EINTR {
		fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return
	}
	for unix.Fsync(fd) == unix.EINTR {
	}
	_ = unix.Close(fd)
}
