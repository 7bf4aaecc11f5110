//go:build linux

package fileid

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// Supported reports whether identities can be read here.
const Supported = true

// StatAt returns the identity of the regular file name in the open
// directory dir: one fstatat, no walk of the full path.
func StatAt(dir *os.File, name string) (ID, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return ID{}, false
	}
	return idOf(&st), true
}

// Stat returns the identity of the regular file at path, without
// following a final symbolic link; absent reports that nothing is there
// (ok is false for anything else that is not a regular file).
func Stat(path string) (id ID, ok, absent bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return ID{}, false, errors.Is(err, unix.ENOENT)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return ID{}, false, false
	}
	return idOf(&st), true, false
}

// Read reads the regular file at path like atomicfile.ReadRegular (the
// same refusals and limit) and returns the identity of the open file
// taken before reading (one open, one fstat, reads, one close): a write
// after that changes the identity, so whoever keys on it reads the file
// again. ok is false when the identity could not be taken (the content
// is still returned).
func Read(path string, limit int64) (data []byte, id ID, ok bool, err error) {
	return read(path, limit, nil)
}

// ReadExpect is Read for a reader that expects the file to hold want (the
// bytes this process just wrote there): when the open file has want's
// size and, compared through a small buffer, want's content, data is want
// itself and no copy of the file is made (a clarify command's monitor
// checks the 100 KB ledger the command wrote: the copy was 25 fresh
// pages). Any other content is read and returned as Read does.
func ReadExpect(path string, limit int64, want []byte) (data []byte, id ID, ok bool, err error) {
	if want == nil {
		want = []byte{}
	}
	return read(path, limit, want)
}

func read(path string, limit int64, want []byte) (data []byte, id ID, ok bool, err error) {
	f, err := atomicfile.OpenRegular(path) // a FIFO must not block the scan
	if err != nil {
		if errors.Is(err, atomicfile.ErrNotRegular) {
			err = errcode.Wrap(errcode.CorruptState, err, "cannot read %s", path)
		}
		return nil, ID{}, false, err
	}
	defer func() { _ = f.Close() }() // opened read-only: a close error loses nothing
	var st unix.Stat_t
	ok = unix.Fstat(int(f.Fd()), &st) == nil
	if ok && want != nil && st.Size == int64(len(want)) && st.Size <= limit {
		same, err := holds(f, want)
		if err != nil {
			return nil, ID{}, false, fmt.Errorf("read %s: %w", path, err)
		}
		if same {
			return want, idOf(&st), true, nil
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, ID{}, false, fmt.Errorf("read %s: %w", path, err)
		}
	}
	data, err = atomicfile.ReadAllLimited(f, limit)
	if err != nil {
		if errors.Is(err, atomicfile.ErrTooLarge) {
			return nil, ID{}, false, errcode.Wrap(errcode.CorruptState, err, "cannot read %s", path)
		}
		return nil, ID{}, false, fmt.Errorf("read %s: %w", path, err)
	}
	if !ok {
		return data, ID{}, false, nil
	}
	return data, idOf(&st), true, nil
}

// holds reports whether what is left to read of f is exactly want.
func holds(f *os.File, want []byte) (bool, error) {
	buf := make([]byte, min(len(want)+1, 32<<10))
	off := 0
	for {
		n, err := f.Read(buf)
		if off+n > len(want) || !bytes.Equal(buf[:n], want[off:off+n]) {
			return false, nil
		}
		off += n
		if errors.Is(err, io.EOF) {
			return off == len(want), nil
		}
		if err != nil {
			return false, err
		}
	}
}

// idOf is the identity a stat reports.
func idOf(st *unix.Stat_t) ID {
	return ID{Ino: int64(st.Ino), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
