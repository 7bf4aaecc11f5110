package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// The slow path: a view built from the issue files, in memory only, when
// no base on disk can be trusted (none, another tool's writes, a crash).

// openSlow builds the view from the files without writing anything. The
// state built is kept for the next read by this Store while the manifest
// and the directory look unchanged (size and modification times): a hook
// searches twice for its recall, and after another tool wrote the store a
// rebuild in memory costs a second at 100K observations.
func (s *Store) openSlow(ctx context.Context) (*view, error) {
	key := s.slowKey()
	st := s.slow.get(key)
	if st == nil {
		var err error
		if st, err = s.readState(ctx, true); err != nil {
			return nil, err
		}
		s.slow.put(key, st)
	}
	if st.files {
		rows := s.fileRows()
		return oneSeg(st.ix, rows.row, rows.close), nil
	}
	data := st.data
	return oneSeg(st.ix, func(d memindex.Doc) (Entry, error) { return entryAt(data, d.Ref) }, func() {}), nil
}

// slowCache holds the last state openSlow built; safe for concurrent use.
type slowCache struct {
	mu  sync.Mutex
	key string
	st  *state
}

func (c *slowCache) get(key string) *state {
	if c == nil || key == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == key {
		return c.st
	}
	return nil
}

func (c *slowCache) put(key string, st *state) {
	if c == nil || key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.st = key, st
}

// slowKey fingerprints what openSlow read by size and modification times
// (every atomic write renames into the directory, changing its time); ""
// when it cannot tell, which disables the cache.
func (s *Store) slowKey() string {
	m, err1 := os.Stat(s.ManifestPath())
	if errors.Is(err1, fs.ErrNotExist) {
		m, err1 = os.Stat(s.IndexPath()) // a file base: its index is what a write replaces
	}
	d, err2 := os.Stat(s.Dir)
	p, err3 := os.Stat(s.pendingDir())
	if err1 != nil || err2 != nil {
		return ""
	}
	key := fmt.Sprintf("%d/%d/%d", m.Size(), m.ModTime().UnixNano(), d.ModTime().UnixNano())
	if err3 == nil {
		key += fmt.Sprintf("/%d", p.ModTime().UnixNano())
	}
	return key
}

// readState is loadState for readers: the same reconciliation from the
// issue files, in memory only. A manifest that disagrees with the issue
// files (or does not parse) is reported, never repaired here. Without
// trustFiles neither a file base nor a manifest is read: the state is
// built from the issue files alone (a file base whose rows were found
// stale; it stays so until an issue file's size or time changes or
// `memory rebuild` runs, each search paying this reconcile meanwhile).
func (s *Store) readState(ctx context.Context, trustFiles bool) (*state, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !trustFiles {
		// Built from the issue files alone: no index, no manifest.
		st, _, err := s.reconcile(nil, 0)
		return st, err
	}
	if st, err := s.readFileState(); st != nil || err != nil {
		return st, err
	}
	path := s.ManifestPath()
	data, err := atomicfile.ReadState(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	missing := errors.Is(err, fs.ErrNotExist)
	var gen uint64
	if err == nil {
		if st, _, ok := readStamp(data, int64(len(data)), true); ok {
			gen = st.Generation
			if idx, err := atomicfile.ReadState(s.IndexPath()); err == nil && !s.unfinishedWrites() {
				if ix, err := memindex.Decode(idx, true); err == nil && ix.Stamp() == st {
					cur := &state{data: data, stamp: st, ix: ix, idx: idx}
					// Issue files changed behind the manifest are indexed
					// again, in memory only.
					if _, err := s.refreshChanged(cur); err != nil {
						return nil, err
					}
					return cur, nil
				}
			}
		}
	}
	issues, ierr := s.Issues()
	if ierr != nil {
		return nil, ierr
	}
	if missing && len(issues) == 0 {
		return emptyState(), nil
	}
	var m *Manifest
	if err == nil {
		var perr error
		if m, perr = ParseManifest(path, data); perr != nil {
			s.warn("%v; searched the issue files instead (`agentx-hook memory rebuild` keeps it aside and rebuilds it)", perr)
			m = nil
		}
	}
	st, _, err := s.reconcile(m, gen)
	if err != nil {
		return nil, err
	}
	s.warnReconciled(m, st, missing)
	return st, nil
}

// warnReconciled says why a reader searched the issue files (st, built
// from them) rather than the index: m is the manifest found, if any.
func (s *Store) warnReconciled(m *Manifest, st *state, missing bool) {
	path := s.ManifestPath()
	switch {
	case m != nil && !sameEntries(m.Entries, st):
		s.warn("%s disagrees with the issue files; used the issue files (the next write or `agentx-hook memory rebuild` repairs it)", path)
	case missing && !s.FileBase:
		s.warn("%s is missing; used the issue files (the next write or `agentx-hook memory rebuild` writes it)", path)
	case missing:
		s.warn("the search index is missing or out of date; searched the issue files (the next write or `agentx-hook memory rebuild` restores fast searches)")
	case m != nil:
		s.warn("the search index is out of date (another tool wrote %s); searched without it (the next write or `agentx-hook memory rebuild` restores fast searches)", path)
	}
}

// readFileState is readState's file base, with the issue files changed
// behind it indexed again in memory only; nil when there is none to trust.
func (s *Store) readFileState() (*state, error) {
	if s.unfinishedWrites() {
		return nil, nil
	}
	st := s.loadFileBase()
	if st == nil {
		return nil, nil
	}
	if _, err := s.refreshChanged(st); err != nil {
		return nil, err
	}
	return st, nil
}

// sameEntries reports whether the manifest's entries are those the issue
// files give, in st's order.
func sameEntries(entries []Entry, st *state) bool {
	if len(entries) != st.ix.Len() {
		return false
	}
	for d := range entries {
		e, err := entryAt(st.data, st.ix.Doc(d).Ref)
		w := &entries[d]
		if err != nil || e.ID != w.ID || e.Agent != w.Agent || e.IssueNumber != w.IssueNumber ||
			e.Category != w.Category || e.Summary != w.Summary || e.Tokens != w.Tokens || e.Timestamp != w.Timestamp {
			return false
		}
	}
	return true
}

// unfinishedWrites reports pending markers that a writer will not clear
// itself (dead, or older than markerStale): the manifest may be behind its
// issue files, so readers must not trust it alone.
func (s *Store) unfinishedWrites() bool {
	issues, _ := s.stalePending()
	return len(issues) > 0
}

func emptyState() *state {
	idx := memindex.NewBuilder().Encode(memindex.Stamp{})
	ix, _ := memindex.Decode(idx, false)
	return &state{ix: ix, idx: idx}
}

// openFiles is openSlow for a view whose rows were found stale: a file
// base is not trusted again (its record said the issue files were those
// it indexed, and a row said otherwise), so the view is built from the
// issue files, and not kept for the next read.
func (s *Store) openFiles(ctx context.Context) (*view, error) {
	if !s.baseIsFiles() {
		return s.openSlow(ctx)
	}
	st, err := s.readState(ctx, false)
	if err != nil {
		return nil, err
	}
	data := st.data
	return oneSeg(st.ix, func(d memindex.Doc) (Entry, error) { return entryAt(data, d.Ref) }, func() {}), nil
}
