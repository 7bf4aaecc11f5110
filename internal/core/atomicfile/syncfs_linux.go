//go:build linux

package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFS flushes the whole file system holding dir (syncfs(2)), which
// covers every file staged on it.
func syncFS(dir string) bool {
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer func() { _ = d.Close() }()
	return unix.Syncfs(int(d.Fd())) == nil
}
