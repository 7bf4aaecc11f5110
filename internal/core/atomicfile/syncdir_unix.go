//go:build unix

package atomicfile

import "golang.org/x/sys/unix"

// syncDir makes the rename durable. Errors are ignored: some filesystems
// refuse fsync on directories, and the rename itself has already happened.
// The directory is opened with OpenFd, not os.Open: its descriptor is
// synced and closed at once (every write of a ledger, issue 35).
func syncDir(dir string) {
	fd, err := OpenFd(unix.AT_FDCWD, dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return
	}
	for unix.Fsync(fd) == unix.EINTR {
	}
	_ = unix.Close(fd)
}
