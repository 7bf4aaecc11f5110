//go:build !linux

package gitstore

import "io/fs"

// sysStat has no change time or inode to offer here; size and
// modification time alone identify a version.
func sysStat(fs.FileInfo) (ctime int64, ino uint64) { return 0, 0 }
