package statemerge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// Driver is git's merge driver protocol for one state file: base, ours
// and theirs are the three versions' files (git's %O %A %B), repoPath the
// file's path in the repository (%P). The merge is written into ours; any
// error leaves ours as it was, so git reports its normal conflict (a
// driver never writes conflict markers).
func Driver(base, ours, theirs, repoPath string) (Report, error) {
	rel, ok := agentxRelative(repoPath)
	if !ok {
		return Report{}, errcode.New(errcode.InvalidInput, "%s is not under a .agentx directory; git's normal conflict stands", repoPath)
	}
	var sides [3][]byte
	for i, p := range []string{base, ours, theirs} {
		var err error
		if sides[i], err = os.ReadFile(p); err != nil {
			return Report{}, fmt.Errorf("merge %s: %w", repoPath, err)
		}
	}
	// git hands an empty file as the base when both sides added the file.
	if len(sides[0]) == 0 {
		sides[0] = nil
	}
	merged, rep, err := MergeFile(rel, sides[0], sides[1], sides[2])
	if errors.Is(err, ErrUnmergeable) {
		e := errcode.Wrap(errcode.CorruptState, err, "cannot merge %s", repoPath)
		e.Hint = "the file was left as it is; git reports its normal conflict (repair the JSON, then `git add` it)"
		return rep, e
	}
	if err != nil {
		return rep, fmt.Errorf("merge %s: %w", repoPath, err)
	}
	if merged == nil {
		return rep, errcode.New(errcode.InvalidInput, "merging %s leaves nothing; git's normal conflict stands", repoPath)
	}
	if err := os.WriteFile(ours, merged, 0o644); err != nil {
		return rep, fmt.Errorf("write merged %s: %w", repoPath, err)
	}
	return rep, nil
}

// agentxRelative turns the path git names (relative to the repository's
// top level) into the path below .agentx/ that MergeFile classifies.
func agentxRelative(repoPath string) (string, bool) {
	p := filepath.ToSlash(repoPath)
	if rest, ok := strings.CutPrefix(p, ".agentx/"); ok {
		return rest, true
	}
	if i := strings.LastIndex(p, "/.agentx/"); i >= 0 {
		return p[i+len("/.agentx/"):], true
	}
	return "", false
}
