//go:build !unix

package atomicfile

import "os"

// syncDir makes the rename durable. Errors are ignored: some filesystems
// refuse fsync on directories, and the rename itself has already happened.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
