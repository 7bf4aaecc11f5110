package workspace

import (
	"errors"
	"io/fs"
	"os"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// InGitWorkTree reports whether root lies in a git work tree (a .git
// entry, directory or worktree file, at root or above it).
func InGitWorkTree(root string) bool { return gitTopLevel(root) != "" }

// Exists reports whether root holds a `.agentx/` directory.
func (w Workspace) Exists() bool {
	fi, err := os.Stat(w.AgentxDir())
	return err == nil && fi.IsDir()
}

// CheckExists refuses a root with no `.agentx/`: only init creates one
// (issue 26: `--root /`, `--root /etc` and AGENTX_ROOT=/etc made
// /.agentx and /etc/.agentx under any command that wrote state).
func (w Workspace) CheckExists() error {
	if w.Exists() {
		return nil
	}
	if _, err := os.Stat(w.AgentxDir()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errcode.Wrap(errcode.IOError, err, "no workspace at %s", w.Root)
	}
	e := errcode.New(errcode.NotFound, "no workspace: %s holds no %s/", w.Root, Dir)
	if !InGitWorkTree(w.Root) {
		return errcode.New(errcode.NotFound, "no workspace: %s is not in a git work tree and holds no %s/", w.Root, Dir).
			WithHint("run agentx-hook in your repository, or pass --root REPO")
	}
	return e.WithHint("agentx-hook init creates it")
}
