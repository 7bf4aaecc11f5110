package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// CheckContained refuses a workspace whose `.agentx/`, `state/`,
// `state/clarifications/`, `memory/` or `workflows/` directory is a symlink
// leading outside the root: every write would land, and every read come
// from, a place the repository's owner did not choose (a symlinked ledger
// file is already refused by the writers). A symlink that stays inside the
// root is allowed. Missing directories are fine (created later).
func (w Workspace) CheckContained() error {
	root, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		return nil // no root yet: nothing to follow
	}
	for _, dir := range []string{w.AgentxDir(), w.StateDir(), w.ClarificationsDir(), w.MemoryDir(), w.WorkflowsDir()} {
		info, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		target, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return errcode.Wrap(errcode.CorruptState, err, "%s is a symlink that cannot be followed", dir)
		}
		if !within(root, target) {
			return errcode.New(errcode.CorruptState, "%s is a symlink to %s, outside the workspace %s; refusing to read or write through it", dir, target, w.Root).
				WithHint("replace the symlink with a directory inside the workspace")
		}
	}
	return nil
}

// Contains reports whether path, symlinks resolved, lies inside the root
// (false when either cannot be resolved).
func (w Workspace) Contains(path string) bool {
	root, err1 := filepath.EvalSymlinks(w.Root)
	target, err2 := filepath.EvalSymlinks(path)
	return err1 == nil && err2 == nil && within(root, target)
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
