//go:build !unix

package memanchor

import "os"

// stamp identifies an issue file's content without reading it: its size
// and modification time (no change time here).
type stamp struct {
	size, mod, change int64
	ino               uint64
	exists            bool
}

func stampOf(path string) stamp {
	info, err := os.Lstat(path)
	if err != nil {
		return stamp{}
	}
	return stamp{size: info.Size(), mod: info.ModTime().UnixNano(), exists: true}
}
