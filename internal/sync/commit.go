package sync

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// LedgerPath is the repository path of issue's ledger under prefix (the
// workspace's directory inside the repository).
func LedgerPath(prefix string, issue int) string {
	return RepoPath(prefix, filepath.ToSlash(filepath.Join(workspace.Dir, "state", "clarifications", "issue-"+strconv.Itoa(issue)+".json")))
}

// errNoChange from a commit function means there is nothing to write.
var errNoChange = errors.New("no change")

// commitAttempts bounds the optimistic-concurrency loop.
const commitAttempts = 6

// commitFile changes one repository file with optimistic concurrency: it
// reads the file and its sha, lets change compute the new content from
// exactly what it read (nil content when the file does not exist), and
// writes with that sha. When someone committed in between (409/422) it
// starts again from the fresh file, so the change is re-applied, never a
// stale file replayed. It returns the attempts made.
func commitFile(ctx context.Context, gh *Client, path, branch, message string, change func(current []byte) ([]byte, error)) (int, error) {
	for attempt := 1; attempt <= commitAttempts; attempt++ {
		current, sha, err := gh.GetFile(ctx, path, branch)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return attempt, err
		}
		next, err := change(current)
		if errors.Is(err, errNoChange) {
			return attempt, nil
		}
		if err != nil {
			return attempt, err
		}
		err = gh.PutFile(ctx, path, branch, message, next, sha)
		if errors.Is(err, ErrConflict) {
			continue
		}
		return attempt, err
	}
	return commitAttempts, fmt.Errorf("commit %s: still conflicting after %d attempts", path, commitAttempts)
}
