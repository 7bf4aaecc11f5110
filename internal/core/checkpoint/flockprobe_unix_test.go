//go:build unix

package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// flockHeld says whether another open file of path holds its flock: a
// flock taken on a file opened anew conflicts with one held through any
// other open of it, in this process too. known is false where it cannot
// be told.
func flockHeld(path string) (held, known bool) {
	f, err := os.Open(path)
	if err != nil {
		return false, false
	}
	defer f.Close()
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); {
	case err == nil:
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false, true
	case errors.Is(err, syscall.EWOULDBLOCK):
		return true, true
	}
	return false, false
}

// opens counts this process's open files of path (Linux's /proc);
// known is false where they cannot be listed.
func opens(path string) (n int, known bool) {
	path, err := filepath.EvalSymlinks(path) // as /proc names it
	if err != nil {
		return 0, false
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == path {
			n++
		}
	}
	return n, true
}
