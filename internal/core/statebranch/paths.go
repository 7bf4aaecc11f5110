package statebranch

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// IsStatePath reports whether rel (relative to .agentx/, slash-separated)
// is shared state that belongs on the state branch: clarification ledgers,
// memory issue files and the memory archive. Everything else under .agentx/
// (config, workflows, the manifest and search index, locks, spools, agent
// status, the event log, temporaries) is derived or local and never leaves
// the machine. The state branch's tree uses the same paths at its root.
func IsStatePath(rel string) bool {
	dir, name := path.Split(rel)
	if name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".lock") {
		return false
	}
	switch dir {
	case "state/clarifications/":
		_, ok := workspace.LedgerIssue(name)
		return ok
	case "memory/":
		return issueFileName(name)
	case "memory/archive/":
		return strings.HasSuffix(name, ".json")
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
var stateDirs = []string{"state/clarifications", "memory", "memory/archive"}

// localFile is one state file as found on disk.
type localFile struct {
	hash plumbing.Hash
	stat fileStat
}

// scanLocal hashes every state file under agentxDir as a git blob, keyed
// by its path relative to .agentx/; files whose stat data the cache knows
// are not read.
func scanLocal(ctx context.Context, agentxDir string, cache *statCache) (map[string]localFile, error) {
	out := map[string]localFile{}
	for _, dir := range stateDirs {
		entries, err := os.ReadDir(filepath.Join(agentxDir, filepath.FromSlash(dir)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		for _, e := range entries {
			rel := dir + "/" + e.Name()
			if !e.Type().IsRegular() || !IsStatePath(rel) {
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
			st := statOf(fi)
			if h, ok := cache.lookup(rel, st); ok {
				out[rel] = localFile{hash: h, stat: st}
				continue
			}
			lf, ok, err := hashFile(filepath.Join(agentxDir, filepath.FromSlash(rel)))
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

// hashFile reads the file at p and hashes it as a git blob; ok is false
// when it is gone.
func hashFile(p string) (lf localFile, ok bool, err error) {
	f, err := atomicfile.OpenRegular(p)
	if errors.Is(err, fs.ErrNotExist) {
		return localFile{}, false, nil
	}
	if err != nil {
		return localFile{}, false, err
	}
	defer func() { _ = f.Close() }() // opened read-only: a close error loses nothing
	// Stat the open file: the hash is then that of the version whose stat
	// data is remembered, even if a writer replaces the path meanwhile.
	fi, err := f.Stat()
	if err != nil {
		return localFile{}, false, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return localFile{}, false, err
	}
	return localFile{hash: blobHash(data), stat: statOf(fi)}, true, nil
}

// blobHash is the object id git gives data as a blob
// (git hash-object --stdin).
func blobHash(data []byte) plumbing.Hash {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}
