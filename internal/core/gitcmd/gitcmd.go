// Package gitcmd owns running the git program. agentx shells out to git only
// where git's own environment decides the answer (GIT_INDEX_FILE during
// `git commit -a`, GIT_DIR in linked worktrees, core.hooksPath): go-git
// ignores those. Everything git is asked goes through one Runner, with a
// context, so a caller's deadline stops it and a test can answer for it.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/process"
)

// Runner runs git and returns its standard output. A fake in tests is a
// map from arguments to output.
type Runner interface {
	Git(ctx context.Context, args ...string) (string, error)
}

// Exec runs the real git in Dir, with the command's environment
// (process.Env: the process's own, so a hook sees the index and git
// directory git gave it, unless the context carries another).
type Exec struct{ Dir string }

// ErrNoGit is returned when no git program is on PATH.
var ErrNoGit = errors.New("git is not installed (not on PATH)")

// Git runs `git ARGS` and returns stdout; git's stderr goes into the error.
func (r Exec) Git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.Dir
	cmd.Env = process.Env(ctx)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", ErrNoGit
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return stdout.String(), fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return stdout.String(), fmt.Errorf("git %s: %s: %w", strings.Join(args, " "), msg, err)
	}
	return stdout.String(), nil
}

// Lines splits git output into its non-empty lines.
func Lines(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
