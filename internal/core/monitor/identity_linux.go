//go:build linux

package monitor

import "syscall"

// statIdentity returns a file's identity. Linux gives nanosecond change
// times, which no user-level tool can set back (touch moves ctime to now).
func statIdentity(path string) (identity, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return identity{}, false
	}
	return identity{ino: int64(st.Ino), size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}
