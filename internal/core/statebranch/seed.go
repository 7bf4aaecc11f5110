package statebranch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// seed merges the state files committed at rev into the local ones, so
// that nothing committed on a code branch is lost when the state moves to
// the state branch. A file the merger refuses stays as it is locally.
func (s *syncer) seed(ctx context.Context, rev string) error {
	h, err := s.r.Resolve(rev)
	if err != nil {
		return err
	}
	files, err := s.treeFiles(h)
	if err != nil {
		return err
	}
	var paths []string
	for p := range files {
		if rel, ok := strings.CutPrefix(p, s.prefix); ok && IsStatePath(rel) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := s.seedFile(ctx, strings.TrimPrefix(p, s.prefix), files[p]); err != nil {
			return err
		}
	}
	return nil
}

// seedFile merges the committed file e (rel under .agentx/) into the
// local one, under its lock.
func (s *syncer) seedFile(ctx context.Context, rel string, e gitstore.Entry) error {
	abs := filepath.Join(s.agentxDir, filepath.FromSlash(rel))
	return atomicfile.WithLock(ctx, s.opt.Locks, abs, func(lk *lock.Lock) error {
		cur, err := atomicfile.ReadState(abs)
		inLocal := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read %s: %w", abs, err)
		}
		if inLocal && gitstore.BlobHash(cur) == e.Hash {
			return nil
		}
		data, err := s.r.Blob(e.Hash)
		if err != nil {
			return err
		}
		result := data
		if inLocal {
			// Both added: the committed copy and the local one are
			// unioned, nothing either holds is dropped.
			// The committed copy keeps its ids (they may be mirrored
			// to issue comments already); local-only ids give way.
			if result, err = s.opt.Merge(rel, nil, data, cur); err != nil {
				s.res.Conflicts = append(s.res.Conflicts, Conflict{Path: rel, Reason: "--init-from: " + err.Error()})
				return nil
			}
		}
		s.telling(rel, cur, inLocal, result)
		wrote, err := s.writeLocal(abs, lk, cur, inLocal, result)
		if wrote && err == nil {
			s.res.Seeded = append(s.res.Seeded, rel)
			s.told(rel, cur, inLocal, result)
		}
		return err
	})
}
