//go:build linux

package gitstore

import (
	"io/fs"
	"syscall"
)

// sysStat returns the change time and inode of fi.
func sysStat(fi fs.FileInfo) (ctime int64, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec, uint64(st.Ino)
}
