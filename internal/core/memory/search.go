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
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// Query is a search (SPEC search and searchByFilters). Text is ranked with
// BM25 over summary and content, OR semantics; the rest are filters. With
// no Text the filtered observations are listed newest first (the SPEC's
// listByAgent and listByCategory are Query{Agent} and Query{Category} with
// Limit -1).
type Query struct {
	Text  string
	Agent string
	Issue int
	// IssueSet filters by Issue even when it is 0 (the old chat
	// integration's issue); otherwise Issue 0 means any issue.
	IssueSet bool
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

// view is a consistent read of the store: the base (manifest and index)
// and, on the fast path, the delta, searched as segments.
type view struct {
	segs []memindex.Seg
	// rows decode the row of a document, one per segment; on the fast
	// path they check the row against the index (errStale when they
	// disagree).
	rows  []func(doc memindex.Doc) (Entry, error)
	close func()
	// stats, when set, are the stat data of the issue files the rows
	// were read from (SearchFiles), called before close.
	stats func() FileStats
}

// FileStat is an issue file's stat data as a search opened it to read its
// rows: size, modification and change times (Unix ns) and inode, what
// lstat gives of it (the file is opened without following a symlink). OK
// is false where they were not taken.
type FileStat struct {
	Size, Mod, Change int64
	Ino               uint64
	OK                bool
}

// FileStats are FileStat by issue number: the files a search read rows
// from. The anchors' check of the same issues takes them instead of
// stat'ing each file again (issue 35: twenty lstats of a search).
type FileStats map[int]FileStat

// oneSeg is a view of a single index whose rows are in the manifest data.
func oneSeg(ix *memindex.Index, row func(doc memindex.Doc) (Entry, error), closeFn func()) *view {
	return &view{segs: []memindex.Seg{{Ix: ix}}, rows: []func(memindex.Doc) (Entry, error){row}, close: closeFn}
}

// eachDoc calls fn with every live document of the view.
func (v *view) eachDoc(fn func(memindex.Doc)) {
	for _, sg := range v.segs {
		for d := 0; d < sg.Ix.Len(); d++ {
			if sg.Dead != nil && sg.Dead(sg.Ix.IssueOf(d)) {
				continue
			}
			fn(sg.Ix.Doc(d))
		}
	}
}

// errStale says a row read through the index is not the row the index
// describes: another writer changed the manifest under an index it kept
// the stamp of. The reader falls back to the files.
var errStale = errors.New("the search index does not describe manifest.json or the issue files")

// open returns a read-only view. Readers never write the store (not the
// manifest, not the index, no lock file; only the freshness gate's local
// record in pending/, fresh.go, which no reader needs): when the index on disk is intact and
// matches the manifest (stamp, size and the head checksum, one small read
// at each end), it is used as is; otherwise the view is built in memory
// from the issue files, the source of truth, and the repair is left to
// the next writer or `memory rebuild`.
// The pending directory is listed once for both questions it answers
// (a writer that will not finish, writers between their steps).
func (s *Store) open(ctx context.Context) (*view, error) {
	names := s.pendingNames()
	if stale, _ := s.staleOf(names); len(stale) == 0 {
		if v := s.openFastMarked(markedOf(names)); v != nil {
			return v, nil
		}
	}
	return s.openSlow(ctx)
}

func (s *Store) openFast() *view { return s.openFastMarked(s.markedIssues()) }

// openFastMarked is openFast, busy being the issues of the pending
// markers (markedIssues).
func (s *Store) openFastMarked(busy map[int]bool) *view {
	if v := s.openFileBase(busy); v != nil {
		return v
	}
	f, err := atomicfile.OpenRegular(s.ManifestPath())
	if err != nil {
		return nil
	}
	v := s.viewOf(f, busy)
	if v == nil {
		_ = f.Close() // read-only: a close error loses nothing
	}
	return v
}

// viewOf is openFast on the open manifest f: a view of the base, whose
// rows are read from f, and of the delta, whose rows are read from their
// issue files; nil when the index is missing or does not match the
// manifest by its stamp and head checksum. The view owns f from then on.
// Nothing here is linear in the store but the issue files' stamps: the
// index is mapped and checked as a search touches it.
func (s *Store) viewOf(f *os.File, busy map[int]bool) *view {
	st, ok := s.baseStamp(f)
	if !ok {
		return nil
	}
	size := st.Size
	ix, unmap, err := s.maps.Open(s.IndexPath())
	if err != nil {
		return nil
	}
	if ix.Stamp() != st {
		unmap()
		return nil
	}
	base := func(doc memindex.Doc) (Entry, error) {
		r := doc.Ref
		if int64(r.Off)+int64(r.Len) > size {
			return Entry{}, errStale
		}
		buf := make([]byte, r.Len)
		if _, err := f.ReadAt(buf, int64(r.Off)); err != nil {
			return Entry{}, err
		}
		e, err := decodeEntry(buf)
		if err != nil || !describes(doc, &e) {
			return Entry{}, errStale
		}
		return e, nil
	}
	return s.segView(ix, unmap, st.Generation, false, busy, base, s.issueRows(), func() { unmap(); _ = f.Close() })
}

// segView is the view of the base ix of generation gen (rows read by
// base) and its delta (rows read by deltaRows), with the issue files
// changed behind both indexed in memory into the delta; nil, having
// called unmap, when more changed than that is worth, or when needRecord
// and there is no record of the issue files for gen (a file base is only
// as good as that record). busy are the issues of the pending markers
// (markedIssues). closeFn is the view's close.
func (s *Store) segView(ix *memindex.Index, unmap func(), gen uint64, needRecord bool, busy map[int]bool, base, deltaRows func(memindex.Doc) (Entry, error), closeFn func()) *view {
	d := s.readDelta(gen)
	changed, known := s.changedIssues(gen, d, true, busy)
	if needRecord && !known {
		unmap()
		return nil
	}
	if known && len(changed) > 0 {
		// Issue files changed behind the store (a hand edit, a checkout):
		// up to a few, they are indexed in memory into the delta, at the
		// cost of those files; more, and the slow path reconciles.
		if len(changed) > overlayMax {
			unmap()
			return nil
		}
		// A reader before this one may have done it (overlay.go).
		od := s.readOverlay(gen, d, changed)
		if s.onOverlay != nil {
			s.onOverlay(od != nil)
		}
		if od != nil {
			d = od
		} else {
			on := d
			if on == nil {
				on = emptyDelta(gen)
			}
			nd, idx, err := s.withIssues(on, changed)
			if err != nil {
				unmap()
				return nil
			}
			s.writeOverlay(gen, d, changed, nd, idx)
			d = nd
		}
	}
	v := oneSeg(ix, base, closeFn)
	if d != nil && len(d.files) > 0 {
		v.segs[0].Dead = deadIssues(d.files)
		v.segs = append(v.segs, memindex.Seg{Ix: d.ix})
		v.rows = append(v.rows, deltaRows)
	}
	return v
}

// deadIssues is the base's mask of the issues the delta holds: a table by
// issue number (a search asks it for every document a term names), a map
// for numbers too large for one.
func deadIssues(held map[int]fileStamp) func(issue int) bool {
	top := 0
	for n := range held {
		top = max(top, n)
	}
	if top >= 1<<22 {
		return func(issue int) bool { _, ok := held[issue]; return ok }
	}
	table := make([]bool, top+1)
	for n := range held {
		table[n] = true
	}
	return func(issue int) bool { return issue >= 0 && issue <= top && table[issue] }
}

// overlayMax is how many changed issue files a reader indexes in memory
// beside the index before it reconciles from all the files instead.
const overlayMax = 64

// issueRows reads delta rows from their issue files by position; each
// file is parsed once per view.
func (s *Store) issueRows() func(doc memindex.Doc) (Entry, error) {
	files := map[int]*IssueFile{}
	return func(doc memindex.Doc) (Entry, error) {
		return s.entryAt(files, doc, int(doc.Ref.Off))
	}
}

// entryAt is the observation at position i of doc's issue file (parsed
// once into files), errStale when it is not there or not the one doc
// describes.
func (s *Store) entryAt(files map[int]*IssueFile, doc memindex.Doc, i int) (Entry, error) {
	f := files[doc.Issue]
	if f == nil {
		var err error
		if f, err = s.readIssue(doc.Issue); err != nil {
			return Entry{}, errStale
		}
		files[doc.Issue] = f
	}
	if i >= len(f.Observations) {
		return Entry{}, errStale
	}
	e := f.Observations[i].Entry()
	if !describes(doc, &e) {
		return Entry{}, errStale
	}
	return e, nil
}

// describes reports whether doc is the index's account of row e: a cheap
// content check of every row a search prints.
func describes(doc memindex.Doc, e *Entry) bool {
	var ms int64
	if t, err := clock.Parse(e.Timestamp); err == nil {
		ms = t.UnixMilli()
	}
	return doc.Issue == e.IssueNumber && doc.Agent == e.Agent && doc.Category == string(e.Category) &&
		doc.Tokens == e.Tokens && doc.Time == ms
}

// Search ranks observations for q. An index found stale while its rows
// are read is dropped for a view built from the files: a search never
// fails because another writer left the index behind.
func (s *Store) Search(ctx context.Context, q Query) ([]Row, error) {
	rows, _, err := s.SearchFiles(ctx, q)
	return rows, err
}

// SearchFiles is Search, with the stat data of the issue files its rows
// were read from (nil when none were taken: another layout, a view built
// from the files).
func (s *Store) SearchFiles(ctx context.Context, q Query) ([]Row, FileStats, error) {
	v, err := s.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	rows, err := s.searchView(v, q)
	var stats FileStats
	if err == nil && v.stats != nil {
		stats = v.stats()
	}
	v.close()
	if errors.Is(err, errStale) {
		if v, err = s.openFiles(ctx); err != nil {
			return nil, nil, err
		}
		defer v.close()
		rows, err := s.searchView(v, q)
		return rows, nil, err
	}
	return rows, stats, err
}

func (s *Store) searchView(v *view, q Query) ([]Row, error) {
	mq := memindex.Query{Text: q.Text, Agent: q.Agent, Category: string(q.Category), Issue: q.Issue, IssueSet: q.IssueSet, Limit: q.Limit}
	if !q.Since.IsZero() {
		mq.Since = q.Since.UnixMilli()
	}
	if !q.Until.IsZero() {
		mq.Until = q.Until.UnixMilli()
	}
	hits, err := memindex.SearchSegs(v.segs, mq)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(hits))
	for _, h := range hits {
		e, err := v.rows[h.Seg](v.segs[h.Seg].Ix.Doc(h.Doc))
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
	OldestTimestamp   *string        `json:"oldestTimestamp"` // null when the store is empty
	NewestTimestamp   *string        `json:"newestTimestamp"`
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
	v.eachDoc(func(doc memindex.Doc) {
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
	})
	st.IssueCount = len(issues)
	if oldest != 0 {
		o, n := clock.Format(time.UnixMilli(oldest)), clock.Format(time.UnixMilli(newest))
		st.OldestTimestamp, st.NewestTimestamp = &o, &n
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
		st.Warnings = append(st.Warnings, "memory store is over 40 MB on disk: `agentx-hook memory compact --auto` applies [retention] to all of it at once (the hooks do one issue file per session)")
	}
	if st.TotalObservations > WarnObservations {
		st.Warnings = append(st.Warnings, "memory store holds over 40,000 observations: `agentx-hook memory compact --auto` applies [retention] to all of it at once (a lower archive_after_days or compact_over keeps it smaller)")
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
