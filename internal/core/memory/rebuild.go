package memory

import (
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

// Rebuild reconciles the manifest and the search index with the issue
// files (`memory rebuild`).
func (s *Store) Rebuild(ctx context.Context) (rep RebuildReport, err error) {
	// Dead writers' markers first (verify --repair rebuilds after a
	// crash): their audit lines appended, the markers gone, so that the
	// index is not still reported stale for them after the rebuild.
	if err := s.repairPending(ctx); err != nil {
		return rep, err
	}
	err = s.withLock(ctx, s.ManifestPath(), func(lk *lock.Lock) error {
		// The issue files are read while the manifest parses: neither
		// needs the other, and each is a third of a rebuild's time.
		start := time.Now()
		loading := make(chan *issueLoad, 1)
		go func() { loading <- s.loadAll() }()
		if s.FileBase {
			st, r, err := s.reconcileFiles(<-loading, s.lastGeneration(), start)
			if err != nil {
				return err
			}
			rep = r
			return s.writeState(lk, st)
		}
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
		return nil, s.lastGeneration(), nil // a file base's, converted
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
	offsets map[int][]uint32 // a file base's (filerows.go); nil otherwise
	corrupt map[int]bool
	skipped []string
	err     error
}

// loadAll reads every issue file (loadIssues).
func (s *Store) loadAll() *issueLoad {
	ld := &issueLoad{}
	if ld.issues, ld.err = s.Issues(); ld.err == nil {
		var rep RebuildReport
		ld.files, ld.offsets, ld.corrupt = s.loadIssues(ld.issues, &rep)
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
func (s *Store) loadIssues(issues []int, rep *RebuildReport) (files map[int]*IssueFile, offsets map[int][]uint32, corrupt map[int]bool) {
	files, corrupt = map[int]*IssueFile{}, map[int]bool{}
	if s.FileBase {
		offsets = map[int][]uint32{}
	}
	loaded := s.readIssues(issues)
	for i, n := range issues {
		if err := loaded[i].err; err != nil {
			corrupt[n] = true
			rep.Skipped = append(rep.Skipped, s.IssuePath(n))
			s.skip(n, err)
			continue
		}
		files[n] = loaded[i].f
		if offsets != nil {
			offsets[n] = loaded[i].offsets
		}
	}
	return files, offsets, corrupt
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

type loadedIssue struct {
	f       *IssueFile
	offsets []uint32 // a file base's
	err     error
}

// readIssues parses issue files on all cores (a rebuild at 100K
// observations is mostly JSON decoding), reporting progress in order.
func (s *Store) readIssues(issues []int) []loadedIssue {
	out := make([]loadedIssue, len(issues))
	workers := min(runtime.GOMAXPROCS(0), 8, max(len(issues)/16, 1))
	var mu sync.Mutex
	finished := 0
	_ = workpool.Run(context.Background(), len(issues), workers, func(i int) {
		var l loadedIssue
		if s.FileBase {
			l.f, l.offsets, l.err = s.readIssueOffsets(issues[i])
		} else {
			l.f, l.err = s.readIssue(issues[i])
		}
		out[i] = l
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
