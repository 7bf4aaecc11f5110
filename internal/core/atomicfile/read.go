package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// DefaultInputLimit bounds every file agentx reads from its input
// (--summary-file, memory capture --file, memory add --file) and every
// state or configuration file it loads: reading /dev/zero or a runaway log
// must end in an error naming the limit, not in the kernel killing the
// process for memory.
const DefaultInputLimit int64 = 10 << 20

// ErrNotRegular marks a path that exists but is not a regular file (a FIFO,
// a device, a socket, a directory). Opening a FIFO for reading blocks until
// a writer appears, so a hook that must fail open would hang for good.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge marks a file longer than the limit it was read with.
var ErrTooLarge = errors.New("file too large")

// OpenRegular opens path for reading without blocking on a FIFO and
// refuses anything but a regular file. O_NONBLOCK makes the open of a FIFO
// return at once; the fstat then tells what was opened, so there is no
// window between a check and the open. Missing files keep fs.ErrNotExist.
func OpenRegular(path string) (*os.File, error) {
	return openChecked(path, os.O_RDONLY, 0, 0)
}

// ReadRegular reads the whole of a state or configuration file, refusing a
// non-regular file and a file over limit bytes (DefaultInputLimit when
// limit <= 0). Both refusals are CORRUPT_STATE, like a file that does not
// parse; a missing file keeps fs.ErrNotExist so callers treat it as empty.
func ReadRegular(path string, limit int64) ([]byte, error) {
	return ReadRegularRoom(path, limit, 0)
}

// ReadRegularRoom is ReadRegular into a buffer with room bytes of capacity
// past the content: a caller that appends to what it read (a ledger with
// a new record spliced in) does so in place, not in a second copy.
func ReadRegularRoom(path string, limit int64, room int) ([]byte, error) {
	data, err := readLimitedRoom(path, limit, room)
	if err != nil && (errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge)) {
		return nil, refusal(path, err)
	}
	return data, err
}

// ReadInput reads a file named on the command line or in a payload. A
// non-regular file, a file over the limit and any other read failure are
// INVALID_INPUT naming what (flag or field) the path came from.
func ReadInput(what, path string, limit int64) ([]byte, error) {
	data, err := readLimited(path, limit)
	if err != nil {
		return nil, errcode.Wrap(errcode.InvalidInput, err, "%s", what)
	}
	return data, nil
}

// ReadAllLimited reads r to its end, failing with ErrTooLarge (naming the
// limit) past limit bytes: stdin and pipes get the same bound as files.
func ReadAllLimited(r io.Reader, limit int64) ([]byte, error) {
	return readAllLimited(r, limit, 0)
}

func readAllLimited(r io.Reader, limit int64, room int) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultInputLimit
	}
	lr := io.LimitReader(r, limit+1)
	var data []byte
	var err error
	if f, ok := r.(*os.File); ok {
		// A file's size is known: one buffer of that size (and room to
		// see the end) instead of io.ReadAll's doublings, each zeroed and
		// copied (a 10 MB manifest cost 40% of a search in clearing them).
		info, serr := f.Stat()
		regular := serr == nil && info.Mode().IsRegular()
		if regular && info.Size() > limit {
			// Refused before a byte is read: a 300 MB ledger must not cost
			// every scan a 256 MB buffer to find out.
			return nil, fmt.Errorf("%w: %s, more than the limit of %s", ErrTooLarge, byteSize(info.Size()), byteSize(limit))
		}
		if regular && info.Size() > 0 {
			buf := bytes.NewBuffer(make([]byte, 0, min(info.Size(), limit)+bytes.MinRead+1+int64(room)))
			_, err = buf.ReadFrom(lr)
			data = buf.Bytes()
		} else {
			data, err = io.ReadAll(lr)
		}
	} else {
		data, err = io.ReadAll(lr)
	}
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: more than the limit of %s", ErrTooLarge, byteSize(limit))
	}
	return data, nil
}

func readLimited(path string, limit int64) ([]byte, error) {
	return readLimitedRoom(path, limit, 0)
}

func readLimitedRoom(path string, limit int64, room int) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultInputLimit
	}
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only: a close error loses nothing
	data, err := readAllLimited(f, limit, room)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return data, nil
}

// refusal is ReadRegular's CORRUPT_STATE for path, err a refusal of
// readLimitedRoom: the path named once, not again by the read's own error.
func refusal(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path && pe.Op == "read" {
		err = pe.Err
	}
	return errcode.Wrap(errcode.CorruptState, err, "cannot read %s", path)
}

// Kind names what a non-regular file is, for messages ("a FIFO").
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	default:
		return "mode " + m.String()
	}
}

func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// StateLimit bounds a state file (ledger, status, memory issue file, spool
// entry, configuration). It is far above what agentx writes; it exists so a
// file replaced by something huge is refused rather than read into memory.
// A variable only so tests can lower it (a store past it, scaled down).
var StateLimit int64 = 256 << 20

// StoreLimit bounds the two files whose size grows with the whole memory
// store rather than with one issue: memory/manifest.json (about 350 bytes
// an observation) and memory/search.idx (about 55). Under StateLimit the
// manifest refused reads at about 730K observations while writers kept
// growing it; this limit is what the index's 32-bit row offsets into the
// manifest can address, so a store reaches it at about 12M observations,
// and its writers refuse to pass it (memory.ErrStoreLimit) instead of
// writing a file no reader accepts. A variable only so tests can lower it.
var StoreLimit int64 = 1<<32 - 1

// LimitOf is the read limit of the state file at path (absolute, or
// relative to the workspace or to .agentx/): StoreLimit for the memory
// store's manifest and search index, StateLimit for everything else.
// Readers and writers use it so that no file agentx writes is one it then
// refuses to read.
func LimitOf(path string) int64 {
	base := filepath.Base(path)
	if (base == "manifest.json" || base == "search.idx") && filepath.Base(filepath.Dir(path)) == "memory" {
		return max(StoreLimit, StateLimit)
	}
	return StateLimit
}

// openNoFollow opens path as openChecked does and, in addition, never
// through a symlink on the last component (a cloned repository could aim
// one at a file outside it, a shell profile).
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return openChecked(path, flag|oNoFollow, perm, oNoFollow)
}

// openChecked opens path with flag, O_NONBLOCK so a FIFO cannot block the
// open, and refuses anything but a regular file (the fstat tells what was
// opened, with no window between a check and the open). A symlink refused
// by noFollow (O_NOFOLLOW, or 0) is ErrNotRegular too; missing files keep
// fs.ErrNotExist.
func openChecked(path string, flag int, perm fs.FileMode, noFollow int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		if noFollow != 0 && errors.Is(err, syscall.ELOOP) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (a symlink)", ErrNotRegular)}
		}
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		_ = f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(info.Mode()))}
	}
	return f, nil
}

// OpenAppend opens a log under .agentx/ for appending (created when
// missing), read-write so a torn last line can be ended first. A symlink
// or a special file there is refused (ErrNotRegular), never written
// through.
func OpenAppend(path string) (*os.File, error) {
	return openNoFollow(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
}

// ReadState reads a state file under .agentx/ for a merge or a restore:
// like ReadRegular (limit LimitOf(path)) and, in addition, never through a
// symlink, whose target outside the repository would otherwise be read
// and, by a sync, pushed. A missing file keeps fs.ErrNotExist; a symlink
// or a special file is ErrNotRegular (CORRUPT_STATE).
func ReadState(path string) ([]byte, error) {
	f, err := openNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, ErrNotRegular) {
			return nil, errcode.Wrap(errcode.CorruptState, err, "cannot read %s", path)
		}
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only: a close error loses nothing
	data, err := ReadAllLimited(f, LimitOf(path))
	if err != nil {
		return nil, errcode.Wrap(errcode.CorruptState, err, "cannot read %s", path)
	}
	return data, nil
}
