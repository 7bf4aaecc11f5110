package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// The file base (issue 35; `[memory] manifest = "index"`, the default of
// agentx-hook): the store's base is search.idx alone, its rows pointing
// into the issue files by position as search.delta's do, bound to
// search.files (the issue files as indexed) by generation. No
// manifest.json is written: at 50K observations the manifest was 14 MB of
// the store's 48 MB, every byte of it a copy of what the issue files say,
// read only by the old tools. The index's stamp tells the two bases apart:
// a file base's has Size 0 (a manifest, which the other's stamp
// describes, is never empty).
//
// Readers take whichever base is on disk, whatever the store's mode:
// a store written in the other mode (or by an older agentx, or the old
// tools) keeps working, and the first full write in this store's mode
// (a compaction of the delta, `memory rebuild`) converts it.

// isFileBase reports whether an index stamp is a file base's.
func isFileBase(st memindex.Stamp) bool { return st.Size == 0 }

// fileBaseStamp is the stamp of the file base of generation gen.
func fileBaseStamp(gen uint64) memindex.Stamp { return memindex.Stamp{Generation: gen} }

// openFileBase is openFast for a file base; nil when the index is not a
// file base, or search.files does not record its generation (a crash
// between the two writes): without the record nothing says the issue
// files are those indexed, and the slow path reconciles.
// busy are the issues of the pending markers (markedIssues).
func (s *Store) openFileBase(busy map[int]bool) *view {
	ix, unmap, err := s.maps.Open(s.IndexPath())
	if err != nil {
		return nil
	}
	if !isFileBase(ix.Stamp()) {
		unmap()
		return nil
	}
	rows := s.fileRows()
	v := s.segView(ix, unmap, ix.Stamp().Generation, true, busy, rows.row, s.issueRows(), func() { unmap(); rows.close() })
	if v != nil {
		v.stats = rows.stats
	}
	return v
}

// loadFileBase reads a file base whose record matches it, whole and
// checked (the write path and the slow readers); nil otherwise.
func (s *Store) loadFileBase() *state {
	idx, err := atomicfile.ReadState(s.IndexPath())
	if err != nil {
		return nil
	}
	ix, err := memindex.Decode(idx, true)
	if err != nil || !isFileBase(ix.Stamp()) {
		return nil
	}
	if rec, ok := s.readStamps(); !ok || rec.Generation != ix.Stamp().Generation {
		return nil
	}
	return &state{stamp: ix.Stamp(), ix: ix, idx: idx, files: true}
}

// lastGeneration is the highest generation either base on disk carries,
// so a base written after a switch of mode never reuses a generation (a
// delta or freshness record of the other base could otherwise be taken
// for this one's).
func (s *Store) lastGeneration() uint64 {
	var gen uint64
	if ix, unmap, err := memindex.Open(s.IndexPath(), false); err == nil {
		gen = ix.Stamp().Generation
		unmap()
	}
	if f, err := atomicfile.OpenRegular(s.ManifestPath()); err == nil {
		if st, ok := s.baseStamp(f); ok {
			gen = max(gen, st.Generation)
		}
		_ = f.Close() // read-only
	}
	return gen
}

// reconcileFiles builds a file base from the issue files read (ld), as
// generation gen+1. A corrupt issue file is left for repair and its
// observations are not searched until it is (rows cannot be read from
// it).
func (s *Store) reconcileFiles(ld *issueLoad, gen uint64, start time.Time) (*state, RebuildReport, error) {
	var rep RebuildReport
	if ld.err != nil {
		return nil, rep, ld.err
	}
	rep.IssueFiles, rep.Skipped, rep.IndexOnly = len(ld.issues), ld.skipped, true
	if rep.Skipped == nil {
		rep.Skipped = []string{}
	}
	var files []*IssueFile
	var offsets [][]uint32
	for _, n := range ld.issues {
		if f := ld.files[n]; f != nil {
			files, offsets = append(files, f), append(offsets, ld.offsets[n])
		}
	}
	b := memindex.NewBuilder()
	entries := addFileRows(b, files, offsets)
	st := &state{}
	if err := st.replaceFiles(b, gen+1); err != nil {
		return nil, rep, err
	}
	rep.Entries = entries
	rep.Duration = time.Since(start)
	rep.Millis = rep.Duration.Milliseconds()
	return st, rep, nil
}

// reindexFiles indexes the issues again in the file base st from their
// files: the other issues' documents are kept as they are, only these
// issues' texts are analysed.
func (s *Store) reindexFiles(st *state, issues []int) error {
	drop := make(map[int]bool, len(issues))
	for _, n := range issues {
		drop[n] = true
	}
	b, err := st.ix.Builder(func(d int) bool { return !drop[st.ix.IssueOf(d)] })
	if err != nil {
		return err
	}
	var files []*IssueFile
	var offsets [][]uint32
	for _, n := range issues {
		f, off, err := s.readIssueOffsets(n)
		if err != nil {
			s.skip(n, err)
			continue
		}
		files, offsets = append(files, f), append(offsets, off)
	}
	addFileRows(b, files, offsets)
	return st.replaceFiles(b, st.stamp.Generation+1)
}

// addFileRows adds the observations of files to b as rows pointing into
// their files (offsets[k] are files[k]'s), analysed in parallel, and
// returns how many it added.
func addFileRows(b *memindex.Builder, files []*IssueFile, offsets [][]uint32) int {
	var all []*Observation
	var refs []memindex.Ref
	for k, f := range files {
		for i := range f.Observations {
			all = append(all, &f.Observations[i])
			refs = append(refs, fileRef(offsets[k], i))
		}
	}
	analysed := analyseAll(len(all), func(i int) (string, string) { return all[i].Summary, all[i].Content })
	for i, o := range all {
		e := o.Entry()
		b.AddAnalysed(docOf(&e, refs[i]), <-analysed)
	}
	return len(all)
}

// replaceFiles makes st the file base of generation gen that b describes.
func (st *state) replaceFiles(b *memindex.Builder, gen uint64) error {
	stamp := fileBaseStamp(gen)
	idx := b.Encode(stamp)
	ix, err := memindex.Decode(idx, false)
	if err != nil {
		return err
	}
	*st = state{stamp: stamp, ix: ix, idx: idx, dirty: true, files: true}
	return nil
}

// loadFileState is loadState for a store that writes a file base: the
// base on disk brought in line with the issue files changed behind it
// (the delta's among them), or, when there is none (a manifest base, a
// store of the old tools, a crash between the index and its record), one
// built from all the issue files.
func (s *Store) loadFileState() (*state, error) {
	if st := s.loadFileBase(); st != nil {
		_, err := s.refreshChanged(st)
		return st, err
	}
	st, _, err := s.reconcileFiles(s.loadAll(), s.lastGeneration(), time.Now())
	return st, err
}

// writeFileState commits a file base: the index, then its record of the
// issue files. A crash between the two leaves an index whose record is of
// another generation, which no one trusts: the next access reconciles.
func (s *Store) writeFileState(lk *lock.Lock, st *state) error {
	if err := s.checkStoreLimit(st); err != nil {
		return err
	}
	if err := atomicfile.Write(s.IndexPath(), st.idx, atomicfile.Options{Commit: lk.Commit, NoSync: s.NoSync}); err != nil {
		return err
	}
	s.writeStamps(st.stamp.Generation)
	s.removeDelta()
	s.removeOwnManifest()
	st.dirty = false
	return nil
}

// removeOwnManifest removes a manifest.json that only agentx wrote (its
// stamp still describes it: no other tool rewrote it since), now that the
// file base replaces it: it lists what the issue files say as of an older
// base and nothing reads it. A manifest another tool rewrote is left as it
// is (the old tools own it; `[memory] manifest = "reference"` keeps it
// current for them).
func (s *Store) removeOwnManifest() {
	f, err := atomicfile.OpenRegular(s.ManifestPath())
	if err != nil {
		return
	}
	_, ours := s.baseStamp(f)
	_ = f.Close() // read-only
	if !ours {
		return
	}
	// The whole file is checked before it goes (once: it is then gone):
	// the stamp's checksum covers every byte, so a manifest another tool
	// rewrote keeping our key and head is kept.
	data, err := atomicfile.ReadRegular(s.ManifestPath(), atomicfile.LimitOf(s.ManifestPath()))
	if err != nil {
		return
	}
	if _, _, ok := readStamp(data, int64(len(data)), true); !ok {
		return
	}
	if err := os.Remove(s.ManifestPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.warn("%v", fmt.Errorf("manifest.json (no longer written) not removed: %w", err))
	}
}

// fileBaseGeneration reports whether the index on disk is a file base
// (files) and, when its record of the issue files is of its generation,
// that generation (ok).
func (s *Store) fileBaseGeneration() (gen uint64, files, ok bool) {
	ix, unmap, err := memindex.Open(s.IndexPath(), false)
	if err != nil {
		return 0, false, false
	}
	st := ix.Stamp()
	unmap()
	if !isFileBase(st) {
		return 0, false, false
	}
	gen, rok := s.stampsGeneration()
	return st.Generation, true, rok && gen == st.Generation
}

// baseIsFiles reports whether the index on disk is a file base.
func (s *Store) baseIsFiles() bool {
	_, files, _ := s.fileBaseGeneration()
	return files
}
