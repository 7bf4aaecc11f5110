package memory

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// Query is a search (SPEC search and searchByFilters). Text is ranked with
// BM25 over summary and content, OR semantics; the rest are filters. With
// no Text the filtered observations are listed newest first (the SPEC's
// listByAgent and listByCategory are Query{Agent} and Query{Category} with
// Limit -1).
type Query struct {
	Text     string
	Agent    string
	Issue    int
	Category Category
	Since    time.Time
	Until    time.Time
	// Limit: 0 means 20, negative means all.
	Limit int
}

// Row is a compact search result (progressive disclosure: `memory get`
// returns the full observation).
type Row struct {
	Entry
	Score float64
}

// view is a consistent read of the manifest and its index.
type view struct {
	ix    *memindex.Index
	row   func(ref memindex.Ref) (Entry, error)
	close func()
}

// open returns a view without taking a lock when the index on disk is
// intact (its checksum verifies) and matches the manifest (one small read
// at the manifest's end); otherwise it rebuilds under the manifest lock.
func (s *Store) open(ctx context.Context) (*view, error) {
	if err := s.repairPending(ctx); err != nil {
		return nil, err
	}
	if v := s.openFast(); v != nil {
		return v, nil
	}
	if _, err := os.Stat(s.Dir); errors.Is(err, fs.ErrNotExist) {
		// Nothing stored yet: reading must not create the directory.
		st := emptyState()
		return &view{ix: st.ix, row: func(r memindex.Ref) (Entry, error) { return entryAt(nil, r) }, close: func() {}}, nil
	}
	var st *state
	err := s.withLock(ctx, s.ManifestPath(), func(lk *lock.Lock) error {
		if _, err := os.Stat(s.ManifestPath()); errors.Is(err, fs.ErrNotExist) {
			if issues, _ := s.Issues(); len(issues) == 0 {
				st = emptyState()
				return nil
			}
		}
		var err error
		if st, err = s.loadState(); err != nil {
			return err
		}
		return s.writeState(lk, st)
	})
	if err != nil {
		return nil, err
	}
	data := st.data
	return &view{ix: st.ix, row: func(r memindex.Ref) (Entry, error) { return entryAt(data, r) }, close: func() {}}, nil
}

func emptyState() *state {
	idx := memindex.NewBuilder().Encode(memindex.Stamp{})
	ix, _ := memindex.Decode(idx, false)
	return &state{ix: ix, idx: idx}
}

func (s *Store) openFast() *view {
	f, err := atomicfile.OpenRegular(s.ManifestPath())
	if err != nil {
		return nil
	}
	v := s.viewOf(f)
	if v == nil {
		_ = f.Close() // read-only: a close error loses nothing
	}
	return v
}

// viewOf is openFast on the open manifest f: a view whose rows are read
// from f, or nil when the index is missing or does not match the manifest
// by its stamp. The view owns f from then on.
func (s *Store) viewOf(f *os.File) *view {
	info, err := f.Stat()
	if err != nil {
		return nil
	}
	size := info.Size()
	tail := make([]byte, min(size, 128))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return nil
	}
	st, _, ok := readStamp(tail, size, false)
	if !ok {
		return nil
	}
	ix, unmap, err := memindex.Open(s.IndexPath(), true)
	if err != nil {
		return nil
	}
	if ix.Stamp() != st {
		unmap()
		return nil
	}
	row := func(r memindex.Ref) (Entry, error) {
		if int64(r.Off)+int64(r.Len) > size {
			return Entry{}, memindex.ErrFormat
		}
		buf := make([]byte, r.Len)
		if _, err := f.ReadAt(buf, int64(r.Off)); err != nil {
			return Entry{}, err
		}
		return decodeEntry(buf)
	}
	return &view{ix: ix, row: row, close: func() { unmap(); _ = f.Close() }}
}

// Search ranks observations for q.
func (s *Store) Search(ctx context.Context, q Query) ([]Row, error) {
	v, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	defer v.close()
	mq := memindex.Query{Text: q.Text, Agent: q.Agent, Category: string(q.Category), Issue: q.Issue, Limit: q.Limit}
	if !q.Since.IsZero() {
		mq.Since = q.Since.UnixMilli()
	}
	if !q.Until.IsZero() {
		mq.Until = q.Until.UnixMilli()
	}
	hits, err := v.ix.Search(mq)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(hits))
	for _, h := range hits {
		e, err := v.row(v.ix.Doc(h.Doc).Ref)
		if err != nil {
			return nil, err
		}
		rows = append(rows, Row{Entry: e, Score: h.Score})
	}
	return rows, nil
}

// Stats is the SPEC StoreStats plus disk usage and the SPEC's warnings.
type Stats struct {
	TotalObservations int            `json:"totalObservations"`
	TotalTokens       int            `json:"totalTokens"`
	IssueCount        int            `json:"issueCount"`
	OldestTimestamp   string         `json:"oldestTimestamp"`
	NewestTimestamp   string         `json:"newestTimestamp"`
	ByCategory        map[string]int `json:"byCategory"`
	ByAgent           map[string]int `json:"byAgent"`
	DiskBytes         int64          `json:"diskBytes"`
	Warnings          []string       `json:"warnings"`
}

// Warning thresholds of the SPEC (the store should stay under 50 MB at
// 50K observations; warn well before).
const (
	WarnBytes        = 40 << 20
	WarnObservations = 40000
)

// Stats returns aggregate statistics.
func (s *Store) Stats(ctx context.Context) (*Stats, error) {
	v, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	defer v.close()
	st := &Stats{ByCategory: map[string]int{}, ByAgent: map[string]int{}, Warnings: []string{}}
	issues := map[int]bool{}
	var oldest, newest int64
	for d := 0; d < v.ix.Len(); d++ {
		doc := v.ix.Doc(d)
		st.TotalObservations++
		st.TotalTokens += doc.Tokens
		issues[doc.Issue] = true
		st.ByCategory[doc.Category]++
		st.ByAgent[doc.Agent]++
		if doc.Time != 0 && (oldest == 0 || doc.Time < oldest) {
			oldest = doc.Time
		}
		if doc.Time > newest {
			newest = doc.Time
		}
	}
	st.IssueCount = len(issues)
	if oldest != 0 {
		st.OldestTimestamp = clock.Format(time.UnixMilli(oldest))
		st.NewestTimestamp = clock.Format(time.UnixMilli(newest))
	}
	_ = filepath.WalkDir(s.Dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				st.DiskBytes += info.Size()
			}
		}
		return nil
	})
	if st.DiskBytes > WarnBytes {
		st.Warnings = append(st.Warnings, "memory store is over 40 MB on disk: consider `agentx-hook memory compact --issue N` on old issues")
	}
	if st.TotalObservations > WarnObservations {
		st.Warnings = append(st.Warnings, "memory store holds over 40,000 observations: consider compacting old issues")
	}
	return st, nil
}

// SortedKeys returns a map's keys by descending count, then name.
func SortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
