package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrRefNotFile is a loose ref that is not a regular file (issue 32: a
// FIFO at .git/refs/agentx/checkpoints hung verify and checkpoint create,
// which opened it and waited for a writer that never came).
var ErrRefNotFile = errors.New("the ref is not a regular file")

// regularRef refuses a loose ref of name that exists but is no regular
// file (a FIFO, a device, a directory where a ref should be); a missing
// one is fine (the ref is packed, or absent). Lstat never opens it.
func (r *Repo) regularRef(name string) error {
	p := r.refPath(name)
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("read ref %s: %w", name, err)
	case fi.Mode().IsRegular(), fi.Mode()&fs.ModeSymlink != 0 && r.symlinkToFile(p):
		return nil
	}
	return fmt.Errorf("read ref %s: %w (%s is a %s); move it aside, then agentx writes the ref anew", name, ErrRefNotFile, p, kindOf(fi.Mode()))
}

func (r *Repo) symlinkToFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	}
	return "special file"
}

// regularRefs refuses any loose ref under refs/ (of the common and the
// work tree's own git directory) that is no regular file, before go-git's
// iterator opens them all. WalkDir reads directories only.
func (r *Repo) regularRefs() error {
	dirs := []string{r.CommonDir}
	if r.GitDir != r.CommonDir {
		dirs = append(dirs, r.GitDir)
	}
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(d, "refs"), func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if t := de.Type(); !de.IsDir() && !t.IsRegular() && t&fs.ModeSymlink == 0 {
				return fmt.Errorf("list refs: %w (%s is a %s); move it aside", ErrRefNotFile, p, kindOf(t))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
