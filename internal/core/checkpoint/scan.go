package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/workpool"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// scanned is the durable state as found on disk.
type scanned struct {
	files map[string]gitstore.CachedFile // path relative to .agentx/
	cache *gitstore.StatCache
	read  int
	// readBytes is how much of the files read there was.
	readBytes int64
	blobs     int
	skipped   []string
}

func (sc *scanned) tree() map[string]gitstore.Entry {
	out := make(map[string]gitstore.Entry, len(sc.files))
	for p, f := range sc.files {
		out[p] = gitstore.Entry{Hash: f.Hash, Mode: gitstore.ModeRegular}
	}
	return out
}

// scan hashes every durable file under .agentx/. Files whose stat data
// the cache knows are not read; a file read is stored as a blob unless its
// hash is in known (the blobs of the last checkpoint, which are reachable
// and so never collected) or already in the object database. With write
// false nothing is stored (a dry run, a comparison).
func (s *Store) scan(ctx context.Context, known map[gitstore.Hash]bool) (*scanned, error) {
	return s.scanOpt(ctx, known, true)
}

func (s *Store) scanOpt(ctx context.Context, known map[gitstore.Hash]bool, write bool) (*scanned, error) {
	sc := &scanned{files: map[string]gitstore.CachedFile{}, skipped: []string{},
		cache: gitstore.LoadStatCache(gitstore.StatCachePath(s.repo.GitDir, "checkpoint-cache", s.WS.AgentxDir()))}
	var jobs []job
	if err := s.list(s.WS.AgentxDir(), "", sc, &jobs); err != nil {
		return nil, err
	}
	if err := s.scanFiles(ctx, sc, jobs, known, write); err != nil {
		return nil, err
	}
	for i := range jobs {
		j := &jobs[i]
		if !j.found {
			continue
		}
		sc.files[j.rel] = j.file
		if j.read {
			sc.read++
			sc.readBytes += j.file.Stat.Size
		}
		if j.stored {
			sc.blobs++
		}
	}
	return sc, nil
}

// list adds the durable regular files under dir (rel: its path relative
// to .agentx/) to jobs; the rest that is not local-only is skipped.
func (s *Store) list(dir, rel string, sc *scanned, jobs *[]job) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	for _, e := range entries {
		r := rel + e.Name()
		switch {
		case e.IsDir():
			if !workspace.IsLocalOnly(r + "/") {
				if err := s.list(filepath.Join(dir, e.Name()), r+"/", sc, jobs); err != nil {
					return err
				}
			}
		case workspace.IsLocalOnly(r):
		case !e.Type().IsRegular() || strings.ContainsAny(r, "\n\x00"):
			sc.skipped = append(sc.skipped, r)
		default:
			*jobs = append(*jobs, job{abs: filepath.Join(dir, e.Name()), rel: r, entry: e})
		}
	}
	return nil
}

// scanFiles runs scanFile over jobs. Reading, hashing and compressing new
// files is most of a first checkpoint's cost: it is spread over the
// processors.
func (s *Store) scanFiles(ctx context.Context, sc *scanned, jobs []job, known map[gitstore.Hash]bool, write bool) error {
	return parallel(ctx, len(jobs), func(i int) error { return s.scanFile(sc, &jobs[i], known, write) })
}

// parallel runs fn(0..n-1) on up to one goroutine per processor (one for
// small n) and returns the errors; after the first error it starts no
// more.
func parallel(ctx context.Context, n int, fn func(i int) error) error {
	var mu sync.Mutex
	var errs []error
	var failed atomic.Bool
	err := workpool.Run(ctx, n, min(runtime.GOMAXPROCS(0), 1+n/64), func(i int) {
		if failed.Load() {
			return
		}
		if err := fn(i); err != nil {
			failed.Store(true)
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	})
	return errors.Join(append(errs, err)...)
}

// job is one file of a scan and what became of it.
type job struct {
	abs, rel            string
	entry               fs.DirEntry
	file                gitstore.CachedFile
	found, read, stored bool
}

func (s *Store) scanFile(sc *scanned, j *job, known map[gitstore.Hash]bool, write bool) error {
	fi, err := j.entry.Info()
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed while we listed: absent
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", j.rel, err)
	}
	st := gitstore.StatOf(fi)
	if h, ok := sc.cache.Lookup(j.rel, st); ok && (!write || known[h] || s.repo.Has(h)) {
		j.file, j.found = gitstore.CachedFile{Hash: h, Stat: st}, true
		return nil
	}
	data, st, ok, err := gitstore.ReadFile(j.abs)
	if err != nil {
		return fmt.Errorf("read %s: %w", j.rel, err)
	}
	if !ok {
		return nil
	}
	j.read = true
	h := gitstore.BlobHash(data)
	if write && !known[h] && !s.repo.Has(h) {
		if err := s.repo.StoreBlob(h, data); err != nil {
			return err
		}
		j.stored = true
	}
	j.file, j.found = gitstore.CachedFile{Hash: h, Stat: st}, true
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
