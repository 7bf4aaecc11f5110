//go:build unix

package memory

import (
	"errors"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// eachIssueFile calls fn with the number, size and modification time (ns)
// of every issue file in dir. Each is one fstatat on the directory's
// descriptor, half the cost of a stat by path at 2,000 files (a search
// pays it).
func eachIssueFile(dir string, fn func(n int, size, mod int64, err error)) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }() // read-only
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	fd := int(d.Fd())
	var st unix.Stat_t
	for _, name := range names {
		n, ok := issueFileNumber(name)
		if !ok {
			continue
		}
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			fn(n, 0, 0, err)
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			continue
		}
		fn(n, st.Size, st.Mtim.Nano(), nil)
	}
	return nil
}

// freshKey is the stat data the freshness gate (fresh.go) compares: the
// store's directory and manifest.json (size, modification and change
// times, inode); newest is the latest of those times (ns) and fine says
// the file system keeps sub-second times (one of them has a fraction).
// ok is false when they cannot be stat'ed. A missing manifest (a file
// base writes none) is part of the key as such: one the old tools create
// changes the directory. manifest "" leaves the manifest's part out.
func freshKey(dir, manifest string) (key string, newest int64, fine, ok bool) {
	b := make([]byte, 0, 128)
	for _, p := range []string{dir, manifest} {
		if p == "" {
			continue
		}
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			if p == manifest && errors.Is(err, unix.ENOENT) {
				b = append(b, "-;"...)
				continue
			}
			return "", 0, false, false
		}
		for _, t := range []int64{st.Mtim.Nano(), st.Ctim.Nano()} {
			newest = max(newest, t)
			fine = fine || t%int64(time.Second) != 0
		}
		// "size mtime ctime ino dev;", appended (fmt cost a search 1 µs).
		b = strconv.AppendInt(b, st.Size, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, st.Mtim.Nano(), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, st.Ctim.Nano(), 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(st.Ino), 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(st.Dev), 10)
		b = append(b, ';')
	}
	return string(b), newest, fine, true
}
