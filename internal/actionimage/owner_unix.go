//go:build unix

package actionimage

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The ownership half of Options.Chown: a uid on every file is a unix
// notion (GitHub's runner and the Action's image are Linux); owner_other.go
// refuses Chown elsewhere instead of pretending to check.

func chownTree(root string, uid int) error {
	return filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
}

// ownedByRunner fails on any file the action left under root that the
// runner's user does not own (a root-owned file in the workspace breaks
// the next job's checkout on a self-hosted runner).
func ownedByRunner(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != RunnerUID {
			return fmt.Errorf("%s is owned by uid %d, not the runner's %d", p, st.Uid, RunnerUID)
		}
		return nil
	})
}
