//go:build linux

package monitor

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// dirFD is the descriptor statAt resolves names against.
func dirFD(dir *os.File) int { return int(dir.Fd()) }

// statAt returns the identity of a name in the open directory dirfd: one
// fstatat with no walk of the full path (the hot loop of a scan).
func statAt(dirfd int, _ string, name string) (identity, bool) {
	var st syscall.Stat_t
	if err := unixFstatat(dirfd, name, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return identity{}, false
	}
	return fromStat(&st), true
}

func fromStat(st *syscall.Stat_t) identity {
	return identity{ino: int64(st.Ino), size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// readWithIdentity reads a file and returns the identity of the open file
// taken before reading (one open, one fstat, reads, one close).
func readWithIdentity(path string) ([]byte, identity, bool, error) {
	f, err := atomicfile.OpenRegular(path) // a FIFO must not block the scan
	if err != nil {
		return nil, identity{}, false, err
	}
	defer func() { _ = f.Close() }() // opened read-only: a close error loses nothing
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		data, rerr := io.ReadAll(f)
		return data, identity{}, false, rerr
	}
	if st.Size > atomicfile.StateLimit {
		return nil, identity{}, false, fmt.Errorf("read %s: %w: %d bytes", path, atomicfile.ErrTooLarge, st.Size)
	}
	buf := make([]byte, 0, st.Size+512)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, fromStat(&st), true, nil
		}
		if err != nil {
			return nil, identity{}, false, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// unixFstatat is fstatat(2) (newfstatat on most architectures), which the
// standard syscall package does not export for Linux.
func unixFstatat(dirfd int, name string, st *syscall.Stat_t) error {
	var u unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &u, 0); err != nil {
		return err
	}
	*st = syscall.Stat_t{Ino: u.Ino, Size: u.Size, Mode: u.Mode,
		Mtim: syscall.Timespec{Sec: u.Mtim.Sec, Nsec: u.Mtim.Nsec}, Ctim: syscall.Timespec{Sec: u.Ctim.Sec, Nsec: u.Ctim.Nsec}}
	return nil
}
