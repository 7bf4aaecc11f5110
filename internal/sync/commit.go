package sync

import (
	"errors"
	"path/filepath"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// LedgerPath is the repository path of issue's ledger under prefix (the
// workspace's directory inside the repository): where a checkout holds it
// in Local Mode, or before the state branch (see Seed).
func LedgerPath(prefix string, issue int) string {
	return RepoPath(prefix, filepath.ToSlash(filepath.Join(workspace.Dir, "state", "clarifications", "issue-"+strconv.Itoa(issue)+".json")))
}

// errNoChange from a commit function means there is nothing to write.
var errNoChange = errors.New("no change")

// commitAttempts bounds the optimistic-concurrency loop.
const commitAttempts = 6
