package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memindex"
	"github.com/agentx-dev/agentx/internal/core/workpool"
)

// state is the manifest and its index as held under the manifest lock.
type state struct {
	data  []byte // the manifest file, sealed with stamp
	stamp memindex.Stamp
	ix    *memindex.Index
	idx   []byte
	dirty bool
}

// RebuildReport describes a rebuild of the manifest and index.
type RebuildReport struct {
	Entries    int           `json:"entries"`
	IssueFiles int           `json:"issueFiles"`
	Skipped    []string      `json:"skipped"`
	Duration   time.Duration `json:"-"`
	Millis     int64         `json:"durationMs"`
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

// Rebuild reconciles the manifest and the search index with the issue
// files (`memory rebuild`).
func (s *Store) Rebuild(ctx context.Context) (rep RebuildReport, err error) {
	err = s.withLock(ctx, s.ManifestPath(), func(lk *lock.Lock) error {
		// The issue files are read while the manifest parses: neither
		// needs the other, and each is a third of a rebuild's time.
		start := time.Now()
		loading := make(chan *issueLoad, 1)
		go func() { loading <- s.loadAll() }()
		m, gen, perr := s.readManifestForRebuild()
		ld := <-loading
		var st *state
		var r RebuildReport
		var err error
		if perr != nil {
			st, r, err = s.rebuildCorrupt(perr, gen, ld, start)
		} else {
			st, r, err = s.reconcileLoaded(m, gen, ld, start)
		}
		if err != nil {
			return err
		}
		rep = r
		return s.writeState(lk, st)
	})
	if err == nil {
		s.auditRebuilt(ctx, rep)
	}
	return rep, err
}

// readManifestForRebuild returns the current manifest when it parses (its
// order and extra keys are kept), else nil and, when it exists but cannot
// be read (past its limit) or does not parse, why: such a manifest is
// moved aside, never replaced unseen with the keys other tools kept in it.
func (s *Store) readManifestForRebuild() (*Manifest, uint64, error) {
	data, err := atomicfile.ReadRegular(s.ManifestPath(), atomicfile.LimitOf(s.ManifestPath()))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	st, _, _ := readStamp(data, int64(len(data)), false)
	m, err := ParseManifest(s.ManifestPath(), data)
	if err != nil {
		return nil, st.Generation, err
	}
	return m, st.Generation, nil
}

// rebuildCorrupt rebuilds a manifest that does not parse (perr) from the
// issue files, after moving it aside: it is reported and kept for a person
// to look at, never overwritten unseen. When it cannot be moved, nothing
// is written.
func (s *Store) rebuildCorrupt(perr error, gen uint64, ld *issueLoad, start time.Time) (*state, RebuildReport, error) {
	path := s.ManifestPath()
	aside := fmt.Sprintf("%s.corrupt-%d", path, s.now().UnixMilli())
	if err := os.Rename(path, aside); err != nil {
		return nil, RebuildReport{}, fmt.Errorf("%w (and it could not be moved aside to rebuild it: %w)", perr, err)
	}
	st, rep, err := s.reconcileLoaded(nil, gen, ld, start)
	if err != nil {
		return nil, rep, err
	}
	s.warn("%s was corrupt (%v); moved it to %s and rebuilt %d entries from %d issue files in %s",
		path, perr, aside, rep.Entries, rep.IssueFiles, rep.Duration.Round(time.Millisecond))
	return st, rep, nil
}

// loadState reads the manifest and its index; when they do not match (no
// index, an index of another generation, a manifest written by another
// tool, a corrupt manifest) it reconciles them from the issue files.
func (s *Store) loadState() (*state, error) {
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

// reconcile builds the manifest and index from the issue files, keeping
// the order (and extra keys) of m where its entries still exist. Entries of
// a corrupt issue file are kept as the manifest had them: the file is left
// for a person to repair and its observations are not forgotten.
func (s *Store) reconcile(m *Manifest, gen uint64) (*state, RebuildReport, error) {
	start := time.Now()
	return s.reconcileLoaded(m, gen, s.loadAll(), start)
}

// issueLoad is every issue file, read for a reconcile.
type issueLoad struct {
	issues  []int
	files   map[int]*IssueFile
	corrupt map[int]bool
	skipped []string
	err     error
}

// loadAll reads every issue file (loadIssues).
func (s *Store) loadAll() *issueLoad {
	ld := &issueLoad{}
	if ld.issues, ld.err = s.Issues(); ld.err == nil {
		var rep RebuildReport
		ld.files, ld.corrupt = s.loadIssues(ld.issues, &rep)
		ld.skipped = rep.Skipped
	}
	return ld
}

// reconcileLoaded is reconcile over issue files already read (ld); start
// is when the work began, for the report.
func (s *Store) reconcileLoaded(m *Manifest, gen uint64, ld *issueLoad, start time.Time) (*state, RebuildReport, error) {
	var rep RebuildReport
	if ld.err != nil {
		return nil, rep, ld.err
	}
	issues, files, corrupt := ld.issues, ld.files, ld.corrupt
	rep.IssueFiles, rep.Skipped = len(issues), ld.skipped
	out := &Manifest{Version: 1}
	if m != nil {
		out.Version, out.Extra = m.Version, m.Extra
	}
	out.UpdatedAt = clock.Format(s.now())
	content := map[string]*Observation{}
	for _, f := range files {
		for i := range f.Observations {
			content[f.Observations[i].ID] = &f.Observations[i]
		}
	}
	out.Entries = mergeEntries(m, issues, files, corrupt, content)
	// Rendering the manifest and analysing the texts for the index are
	// independent; the analysis runs on every core, in chunks so that the
	// terms of 100K observations are never all held at once.
	var data []byte
	var refs []memindex.Ref
	var stamp memindex.Stamp
	rendered := make(chan struct{})
	go func() {
		defer close(rendered)
		data, refs, stamp = renderManifest(out, gen+1, s.rowLayout())
	}()
	texts := func(i int) (string, string) {
		e := &out.Entries[i]
		if o := content[e.ID]; o != nil {
			return e.Summary, o.Content
		}
		return e.Summary, ""
	}
	analysed := analyseAll(len(out.Entries), texts)
	b := memindex.NewBuilder()
	<-rendered
	for i := range out.Entries {
		b.AddAnalysed(docOf(&out.Entries[i], refs[i]), <-analysed)
	}
	st := &state{}
	if err := st.replace(b, data, stamp); err != nil {
		return nil, rep, err
	}
	rep.Entries = len(out.Entries)
	rep.Duration = time.Since(start)
	rep.Millis = rep.Duration.Milliseconds()
	if rep.Skipped == nil {
		rep.Skipped = []string{}
	}
	return st, rep, nil
}

// analyseChunk is how many documents are analysed ahead of the builder.
const analyseChunk = 4096

// analyseAll analyses the texts of documents 0..n-1 on all cores and
// delivers them in order, a chunk ahead of the reader at most. The reader
// must take all n.
func analyseAll(n int, texts func(i int) (string, string)) <-chan memindex.Analysed {
	out := make(chan memindex.Analysed, analyseChunk)
	go func() {
		defer close(out)
		chunk := make([]memindex.Analysed, analyseChunk)
		for lo := 0; lo < n; lo += analyseChunk {
			hi := min(lo+analyseChunk, n)
			_ = workpool.Run(context.Background(), hi-lo, runtime.GOMAXPROCS(0), func(i int) {
				summary, content := texts(lo + i)
				chunk[i] = memindex.Analyze(summary, content)
			})
			for i := range hi - lo {
				out <- chunk[i]
			}
		}
	}()
	return out
}

// loadIssues reads the issue files; those that do not parse are reported
// in rep.Skipped and marked corrupt, and left untouched.
func (s *Store) loadIssues(issues []int, rep *RebuildReport) (files map[int]*IssueFile, corrupt map[int]bool) {
	files, corrupt = map[int]*IssueFile{}, map[int]bool{}
	loaded := s.readIssues(issues)
	for i, n := range issues {
		if err := loaded[i].err; err != nil {
			corrupt[n] = true
			rep.Skipped = append(rep.Skipped, s.IssuePath(n))
			s.warn("skipping %s: %v (left untouched for repair)", s.IssuePath(n), err)
			continue
		}
		files[n] = loaded[i].f
	}
	return files, corrupt
}

// mergeEntries lists the manifest entries: first those of m (when not nil)
// in its order, refreshed from the issue files, or as m had them when their
// issue file is corrupt; then the observations m did not list, by issue.
// content maps IDs to the observations of files.
func mergeEntries(m *Manifest, issues []int, files map[int]*IssueFile, corrupt map[int]bool, content map[string]*Observation) []Entry {
	var entries []Entry
	seen := map[string]bool{}
	if m != nil {
		for _, e := range m.Entries {
			if seen[e.ID] {
				continue
			}
			if o := content[e.ID]; o != nil {
				ne := o.Entry()
				ne.Extra = e.Extra
				entries = append(entries, ne)
				seen[e.ID] = true
			} else if corrupt[e.IssueNumber] {
				entries = append(entries, e)
				seen[e.ID] = true
			}
		}
	}
	for _, n := range issues {
		f := files[n]
		if f == nil {
			continue
		}
		for i := range f.Observations {
			if o := &f.Observations[i]; !seen[o.ID] {
				seen[o.ID] = true
				entries = append(entries, o.Entry())
			}
		}
	}
	return entries
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

type loadedIssue struct {
	f   *IssueFile
	err error
}

// readIssues parses issue files on all cores (a rebuild at 100K
// observations is mostly JSON decoding), reporting progress in order.
func (s *Store) readIssues(issues []int) []loadedIssue {
	out := make([]loadedIssue, len(issues))
	workers := min(runtime.GOMAXPROCS(0), 8, max(len(issues)/16, 1))
	var mu sync.Mutex
	finished := 0
	_ = workpool.Run(context.Background(), len(issues), workers, func(i int) {
		f, err := s.readIssue(issues[i])
		out[i] = loadedIssue{f: f, err: err}
		if s.Progress != nil {
			mu.Lock()
			finished++
			if finished%256 == 0 || finished == len(issues) {
				s.Progress(finished, len(issues))
			}
			mu.Unlock()
		}
	})
	return out
}

func docOf(e *Entry, ref memindex.Ref) memindex.Doc {
	var ms int64
	if t, err := clock.Parse(e.Timestamp); err == nil {
		ms = t.UnixMilli()
	}
	return memindex.Doc{Issue: e.IssueNumber, Time: ms, Agent: e.Agent, Category: string(e.Category), Tokens: e.Tokens, Ref: ref}
}

// entryAt decodes the manifest row at ref.
func entryAt(data []byte, ref memindex.Ref) (Entry, error) {
	end := uint64(ref.Off) + uint64(ref.Len)
	if end > uint64(len(data)) {
		return Entry{}, memindex.ErrFormat
	}
	return decodeEntry(data[ref.Off:end])
}

// syncIssue brings the manifest's entries for issue n in line with its
// issue file: appended in place when the file only gained observations at
// the end (the common capture), re-rendered otherwise.
func (s *Store) syncIssue(st *state, n int) error {
	f, err := s.readIssue(n)
	if err != nil {
		s.warn("skipping %s: %v (left untouched for repair)", s.IssuePath(n), err)
		return nil
	}
	var cur []int
	for d := 0; d < st.ix.Len(); d++ {
		if st.ix.Doc(d).Issue == n {
			cur = append(cur, d)
		}
	}
	want := f.Observations
	prefix := len(cur) <= len(want)
	for i := 0; prefix && i < len(cur); i++ {
		e, err := entryAt(st.data, st.ix.Doc(cur[i]).Ref)
		w := want[i].Entry()
		if err != nil || e.ID != w.ID || e.Agent != w.Agent || e.IssueNumber != w.IssueNumber ||
			e.Category != w.Category || e.Summary != w.Summary || e.Tokens != w.Tokens || e.Timestamp != w.Timestamp {
			prefix = false
		}
	}
	if prefix && len(cur) == len(want) {
		return nil
	}
	if prefix && s.appendEntries(st, want[len(cur):]) {
		return nil
	}
	return s.rerender(st, n, want)
}

// appendEntries splices new rows at the end of the entries array, leaving
// every existing row (and its index reference) where it is. It reports
// false when the manifest's shape does not allow it.
func (s *Store) appendEntries(st *state, add []Observation) bool {
	_, prefixLen, ok := readStamp(st.data, int64(len(st.data)), false)
	n := st.ix.Len()
	if !ok || n == 0 {
		return false
	}
	// The last row must end just before the closing bracket and sit as
	// this store lays rows out (layout.go), or it is rendered again.
	const tail = "\n  ]"
	l := s.rowLayout()
	last := st.ix.Doc(n - 1).Ref
	if int(last.Off)+int(last.Len) != prefixLen-len(tail) || !l.laidOut(st.data, int(last.Off)) ||
		string(st.data[prefixLen-len(tail):prefixLen]) != tail {
		return false
	}
	prefix := st.data[:prefixLen]
	body := make([]byte, 0, len(prefix)+len(add)*320+64)
	body = append(body, prefix[:len(prefix)-len(tail)]...)
	if !replaceUpdatedAt(body, clock.Format(s.now())) {
		return false
	}
	b, err := st.ix.Builder(nil)
	if err != nil {
		return false
	}
	for i := range add {
		e := add[i].Entry()
		body = append(body, ',')
		body = append(body, l.sep()...)
		off := len(body)
		body = l.appendEntry(body, &e)
		b.Add(docOf(&e, memindex.Ref{Off: uint32(off), Len: uint32(len(body) - off)}), e.Summary, add[i].Content)
	}
	body = append(body, tail...)
	data, stamp := seal(body, st.stamp.Generation+1)
	return st.replace(b, data, stamp) == nil
}

// replaceUpdatedAt rewrites the top-level updatedAt in place when the new
// value has the old one's length (always, for our ISO timestamps).
func replaceUpdatedAt(body []byte, ts string) bool {
	key := []byte("\n  \"updatedAt\": \"")
	head := body[:min(len(body), 128)]
	i := bytes.Index(head, key)
	if i < 0 {
		return false
	}
	start := i + len(key)
	end := bytes.IndexByte(body[start:], '"')
	if end != len(ts) {
		return false
	}
	copy(body[start:], ts)
	return true
}

// rerender replaces all of issue n's rows with want. Rows of other issues
// are copied as rendered bytes (they are our own rendering, located by the
// index), so nothing is decoded; a manifest laid out otherwise is parsed
// and rendered again.
func (s *Store) rerender(st *state, n int, want []Observation) error {
	keep := func(d int) bool { return st.ix.Doc(d).Issue != n }
	b, err := st.ix.Builder(keep)
	if err != nil {
		return err
	}
	body, refs, tail, ok := s.copyRows(st, keep)
	if !ok {
		return s.rerenderParsed(st, n, want)
	}
	if len(refs) == 0 && len(want) == 0 {
		// No rows left: render the empty array the reference way.
		return s.rerenderParsed(st, n, want)
	}
	for i, r := range refs {
		b.SetRef(i, r)
	}
	l := s.rowLayout()
	for i := range want {
		e := want[i].Entry()
		if len(refs) > 0 || i > 0 {
			body = append(body, ',')
		}
		body = append(body, l.sep()...)
		off := len(body)
		body = l.appendEntry(body, &e)
		b.Add(docOf(&e, memindex.Ref{Off: uint32(off), Len: uint32(len(body) - off)}), e.Summary, want[i].Content)
	}
	body = append(body, tail...)
	data, stamp := seal(body, st.stamp.Generation+1)
	return st.replace(b, data, stamp)
}

// copyRows copies the head of the manifest and the rows keep accepts,
// recording where each lands, and what follows the last row (tail). It
// reports false unless the rows sit back to back as renderManifest lays
// them out.
func (s *Store) copyRows(st *state, keep func(d int) bool) (body []byte, refs []memindex.Ref, tail []byte, ok bool) {
	_, prefixLen, ok := readStamp(st.data, int64(len(st.data)), false)
	n := st.ix.Len()
	if !ok || n == 0 {
		return nil, nil, nil, false
	}
	l := s.rowLayout()
	sep := l.sep()
	first, last := st.ix.Doc(0).Ref, st.ix.Doc(n-1).Ref
	if !l.laidOut(st.data, int(first.Off)) || int(last.Off+last.Len) > prefixLen {
		return nil, nil, nil, false
	}
	head := st.data[:int(first.Off)-len(sep)]
	// Room for the rows the caller appends (an issue's, re-rendered) and
	// one slice of refs: no copy of a 10 MB manifest on the way.
	body = make([]byte, 0, len(st.data)+len(st.data)/32+4096)
	refs = make([]memindex.Ref, 0, n)
	body = append(body, head...)
	if !replaceUpdatedAt(body, clock.Format(s.now())) {
		return nil, nil, nil, false
	}
	next := first.Off
	for d := 0; d < n; d++ {
		r := st.ix.Doc(d).Ref
		if r.Off != next {
			return nil, nil, nil, false
		}
		next = r.Off + r.Len + uint32(len(","+sep))
		if !keep(d) {
			continue
		}
		if len(refs) > 0 {
			body = append(body, ',')
		}
		body = append(body, sep...)
		refs = append(refs, memindex.Ref{Off: uint32(len(body)), Len: r.Len})
		body = append(body, st.data[r.Off:r.Off+r.Len]...)
	}
	tail = st.data[last.Off+last.Len : prefixLen]
	if !bytes.HasPrefix(tail, []byte("\n  ]")) {
		return nil, nil, nil, false
	}
	return body, refs, tail, true
}

// rerenderParsed is rerender for a manifest we must parse first.
func (s *Store) rerenderParsed(st *state, n int, want []Observation) error {
	m, err := ParseManifest(s.ManifestPath(), st.data)
	if err != nil || len(m.Entries) != st.ix.Len() {
		// Our own render no longer matches its index: start over.
		ns, _, err := s.reconcile(m, st.stamp.Generation)
		if err != nil {
			return err
		}
		*st = *ns
		return nil
	}
	b, err := st.ix.Builder(func(d int) bool { return m.Entries[d].IssueNumber != n })
	if err != nil {
		return err
	}
	kept := m.Entries[:0]
	for _, e := range m.Entries {
		if e.IssueNumber != n {
			kept = append(kept, e)
		}
	}
	m.Entries = kept
	for i := range want {
		e := want[i].Entry()
		m.Entries = append(m.Entries, e)
		b.Add(docOf(&e, memindex.Ref{}), e.Summary, want[i].Content)
	}
	m.UpdatedAt = clock.Format(s.now())
	data, refs, stamp := renderManifest(m, st.stamp.Generation+1, s.rowLayout())
	for i, r := range refs {
		b.SetRef(i, r)
	}
	return st.replace(b, data, stamp)
}

// writeState commits the manifest, then its index. A crash between the
// two leaves an index of the previous generation, which readers detect and
// rebuild.
func (s *Store) writeState(lk *lock.Lock, st *state) error {
	if !st.dirty {
		return nil
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
