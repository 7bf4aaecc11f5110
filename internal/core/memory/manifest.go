package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// state is the manifest and its index as held under the manifest lock.
type state struct {
	data  []byte // the manifest file, sealed with stamp
	stamp memindex.Stamp
	ix    *memindex.Index
	idx   []byte
	dirty bool
	// files: a file base (filebase.go), whose rows are in the issue
	// files; data is then empty.
	files bool
}

// RebuildReport describes a rebuild of the manifest and index.
type RebuildReport struct {
	Entries    int           `json:"entries"`
	IssueFiles int           `json:"issueFiles"`
	Skipped    []string      `json:"skipped"`
	Duration   time.Duration `json:"-"`
	Millis     int64         `json:"durationMs"`
	// IndexOnly: no manifest.json was written (a file base).
	IndexOnly bool `json:"indexOnly"`
}

// syncIssues is step 2 for each issue, under the manifest lock.
func (s *Store) syncIssues(ctx context.Context, issues []int) error {
	return s.withLock(ctx, s.ManifestPath(), func(lk *lock.Lock) error {
		if done, err := s.syncDelta(ctx, lk, issues); done || err != nil {
			return err
		}
		// The full path: the delta's issues (refreshChanged) and these
		// are brought into the base, which is written whole.
		st, err := s.loadState()
		if err != nil {
			return err
		}
		if st.files {
			if err := s.reindexFiles(st, issues); err != nil {
				return err
			}
			return s.writeState(lk, st)
		}
		for _, n := range issues {
			if err := s.syncIssue(st, n); err != nil {
				return err
			}
		}
		return s.writeState(lk, st)
	})
}

// Reindex brings the manifest and the search index in line with the issue
// files of issues after something other than this store replaced or
// removed them (a state branch sync): step 2 of the write protocol alone,
// at the cost of those issues rather than a whole Rebuild.
func (s *Store) Reindex(ctx context.Context, issues []int) error {
	if len(issues) == 0 {
		return nil
	}
	return s.syncIssues(ctx, issues)
}

// loadState reads the manifest and its index; when they do not match (no
// index, an index of another generation, a manifest written by another
// tool, a corrupt manifest) it reconciles them from the issue files.
func (s *Store) loadState() (*state, error) {
	if s.FileBase {
		return s.loadFileState()
	}
	path := s.ManifestPath()
	data, err := atomicfile.ReadRegular(path, atomicfile.LimitOf(path))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var gen uint64
	if err == nil {
		if st, _, ok := readStamp(data, int64(len(data)), true); ok {
			gen = st.Generation
			if idx, err := atomicfile.ReadRegular(s.IndexPath(), atomicfile.LimitOf(s.IndexPath())); err == nil {
				if ix, err := memindex.Decode(idx, true); err == nil && ix.Stamp() == st {
					cur := &state{data: data, stamp: st, ix: ix, idx: idx}
					_, err := s.refreshChanged(cur) // issue files changed behind the manifest
					return cur, err
				}
			}
		}
	}
	if gen == 0 {
		gen = s.lastGeneration() // a file base's, converted
	}
	var m *Manifest
	if err == nil {
		var perr error
		m, perr = ParseManifest(path, data)
		if perr != nil {
			st, _, err := s.rebuildCorrupt(perr, gen, s.loadAll(), time.Now())
			return st, err
		}
	}
	st, _, err := s.reconcile(m, gen)
	return st, err
}

// replace makes st the new manifest data with the index b describes.
func (st *state) replace(b *memindex.Builder, data []byte, stamp memindex.Stamp) error {
	idx := b.Encode(stamp)
	ix, err := memindex.Decode(idx, false)
	if err != nil {
		return err
	}
	*st = state{data: data, stamp: stamp, ix: ix, idx: idx, dirty: true}
	return nil
}

func docOf(e *Entry, ref memindex.Ref) memindex.Doc {
	var ms int64
	if t, err := clock.Parse(e.Timestamp); err == nil {
		ms = t.UnixMilli()
	}
	return memindex.Doc{Issue: e.IssueNumber, Time: ms, Agent: e.Agent, Category: string(e.Category), Tokens: e.Tokens, Ref: ref}
}

// writeState commits the manifest, then its index. A crash between the
// two leaves an index of the previous generation, which readers detect and
// rebuild.
func (s *Store) writeState(lk *lock.Lock, st *state) error {
	if !st.dirty {
		return nil
	}
	if st.files {
		return s.writeFileState(lk, st)
	}
	if err := s.checkStoreLimit(st); err != nil {
		return err
	}
	if err := atomicfile.Write(s.ManifestPath(), st.data, s.writeOpts(lk)); err != nil {
		return err
	}
	// The index is derived and checksummed, and every reader verifies the
	// checksum, so it is not fsynced: a power cut that tears it costs a
	// rebuild, never a wrong answer, and the store saves two fsyncs.
	if err := atomicfile.Write(s.IndexPath(), st.idx, atomicfile.Options{Commit: lk.Commit, NoSync: true}); err != nil {
		s.warn("search index not saved (searches will rebuild it): %v", err)
	} else {
		s.writeStamps(st.stamp.Generation)
	}
	// The base holds every issue now; a delta left by a crash here is of
	// the older generation and ignored.
	s.removeDelta()
	st.dirty = false
	return nil
}
