package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// scanned is the durable state as found on disk.
type scanned struct {
	files   map[string]gitstore.CachedFile // path relative to .agentx/
	cache   *gitstore.StatCache
	read    int
	blobs   int
	skipped []string
}

func (sc *scanned) tree() map[string]gitstore.Entry {
	out := make(map[string]gitstore.Entry, len(sc.files))
	for p, f := range sc.files {
		out[p] = gitstore.Entry{Hash: f.Hash, Mode: filemode.Regular}
	}
	return out
}

// scan hashes every durable file under .agentx/. Files whose stat data
// the cache knows are not read; a file read is stored as a blob unless its
// hash is in known (the blobs of the last checkpoint, which are reachable
// and so never collected) or already in the object database. With write
// false nothing is stored (a dry run, a comparison).
func (s *Store) scan(ctx context.Context, known map[plumbing.Hash]bool) (*scanned, error) {
	return s.scanOpt(ctx, known, true)
}

func (s *Store) scanOpt(ctx context.Context, known map[plumbing.Hash]bool, write bool) (*scanned, error) {
	sc := &scanned{files: map[string]gitstore.CachedFile{}, skipped: []string{},
		cache: gitstore.LoadStatCache(gitstore.StatCachePath(s.repo.GitDir, "checkpoint-cache", s.WS.AgentxDir()))}
	root := s.WS.AgentxDir()
	var walk func(dir, rel string) error
	walk = func(dir, rel string) error {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", dir, err)
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return err
			}
			r := rel + e.Name()
			switch {
			case e.IsDir():
				if !workspace.IsLocalOnly(r + "/") {
					if err := walk(filepath.Join(dir, e.Name()), r+"/"); err != nil {
						return err
					}
				}
				continue
			case workspace.IsLocalOnly(r):
				continue
			case !e.Type().IsRegular():
				sc.skipped = append(sc.skipped, r)
				continue
			}
			if err := s.scanFile(sc, filepath.Join(dir, e.Name()), r, e, known, write); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return nil, err
	}
	return sc, nil
}

func (s *Store) scanFile(sc *scanned, abs, rel string, e fs.DirEntry, known map[plumbing.Hash]bool, write bool) error {
	if strings.ContainsAny(rel, "\n\x00") {
		sc.skipped = append(sc.skipped, rel)
		return nil
	}
	fi, err := e.Info()
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed while we listed: absent
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", rel, err)
	}
	st := gitstore.StatOf(fi)
	if h, ok := sc.cache.Lookup(rel, st); ok && (!write || known[h] || s.repo.Has(h)) {
		sc.files[rel] = gitstore.CachedFile{Hash: h, Stat: st}
		return nil
	}
	data, st, ok, err := gitstore.ReadFile(abs)
	if err != nil {
		return fmt.Errorf("read %s: %w", rel, err)
	}
	if !ok {
		return nil
	}
	sc.read++
	h := gitstore.BlobHash(data)
	if write && !known[h] && !s.repo.Has(h) {
		if err := s.repo.StoreBlob(h, data); err != nil {
			return err
		}
		sc.blobs++
	}
	sc.files[rel] = gitstore.CachedFile{Hash: h, Stat: st}
	return nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
