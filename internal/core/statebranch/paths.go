package statebranch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/metrics"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// IsStatePath reports whether rel (relative to .agentx/, slash-separated)
// is shared state that belongs on the state branch: clarification ledgers,
// stage artifact ledgers (state/artifacts/issue-N.json), memory issue files, the memory archive and each machine's weekly metrics
// sums (state/metrics/WRITER-YYYY-Www.json, one writer each). The audit trail goes too, but
// under a path of this clone's own (TrailDir; see mergeTrail). Everything
// else under .agentx/ (config, workflows, the manifest and search index,
// locks, spools, agent status, the event log, temporaries, the writer id)
// is derived or local and never leaves the machine. The state branch's
// tree uses the same paths at its root.
func IsStatePath(rel string) bool {
	dir, name := path.Split(rel)
	if name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".lock") {
		return false
	}
	switch dir {
	case "state/clarifications/":
		_, ok := workspace.LedgerIssue(name)
		return ok
	case "memory/", "state/artifacts/":
		return issueFileName(name)
	case "memory/archive/":
		return strings.HasSuffix(name, ".json")
	case metrics.Dir + "/":
		_, _, ok := metrics.ParseFileName(name)
		return ok
	}
	return false
}

// issueFileName matches issue-N.json with N a positive decimal.
func issueFileName(name string) bool {
	n, ok := strings.CutPrefix(name, "issue-")
	if !ok {
		return false
	}
	n, ok = strings.CutSuffix(n, ".json")
	if !ok || n == "" || n[0] == '0' {
		return false
	}
	_, err := strconv.ParseUint(n, 10, 31)
	return err == nil
}

// stateDirs are the directories IsStatePath accepts files in; scanning
// reads only these, never the rest of .agentx/.
var stateDirs = []string{"state/clarifications", "state/artifacts", "memory", "memory/archive", metrics.Dir}

// scanLocal hashes every state file under agentxDir as a git blob, keyed
// by its path on the branch (relative to .agentx/; the audit trail's
// files, when trail is set, under trail); files whose stat data the cache
// knows are not read.
func scanLocal(ctx context.Context, agentxDir, trail string, cache *gitstore.StatCache) (map[string]gitstore.CachedFile, error) {
	out := map[string]gitstore.CachedFile{}
	dirs := stateDirs
	if trail != "" {
		dirs = append(dirs[:len(dirs):len(dirs)], "state")
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(filepath.Join(agentxDir, filepath.FromSlash(dir)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		for _, e := range entries {
			local := dir + "/" + e.Name()
			rel, isTrail, ok := branchPath(dir, e.Name(), trail)
			if !ok || !e.Type().IsRegular() {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fi, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while we listed: absent
			}
			if err != nil {
				return nil, fmt.Errorf("stat %s: %w", rel, err)
			}
			st := gitstore.StatOf(fi)
			if h, ok := cache.Lookup(rel, st); ok {
				out[rel] = gitstore.CachedFile{Hash: h, Stat: st}
				continue
			}
			lf, ok, err := hashFile(filepath.Join(agentxDir, filepath.FromSlash(local)), isTrail)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", rel, err)
			}
			if ok {
				out[rel] = lf
			}
		}
	}
	return out, nil
}

// branchPath is the branch path of local file name in dir (relative to
// .agentx/): a state file's own, a trail file's under trail. ok is false
// for anything that does not go to the branch.
func branchPath(dir, name, trail string) (rel string, isTrail, ok bool) {
	if dir == "state" {
		return trail + name, true, audit.IsFileName(name)
	}
	rel = dir + "/" + name
	return rel, false, IsStatePath(rel)
}

// hashFile reads the file at p and hashes it as a git blob (only its
// complete lines when lines is set: what mergeTrail pushes); ok is false
// when it is gone.
func hashFile(p string, lines bool) (lf gitstore.CachedFile, ok bool, err error) {
	data, st, ok, err := gitstore.ReadFile(p)
	if !ok || err != nil {
		return gitstore.CachedFile{}, ok, err
	}
	if lines {
		data = completeLines(data)
	}
	return gitstore.CachedFile{Hash: gitstore.BlobHash(data), Stat: st}, true, nil
}

// SyncedRef is the local ref holding the last synchronised base: the tree
// both this clone and the remote agreed on at the last sync. It lives under
// refs/agentx/ so that no branch, tag or remote listing shows it, and git gc
// keeps its objects.
const SyncedRef = "refs/agentx/synced"
