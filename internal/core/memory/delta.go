package memory

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memindex"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// The delta (issue 35). manifest.json and search.idx are the store's base:
// rewritten whole, they cost a write in proportion to the store (17 MB of
// manifest at 50K observations, 0.26 s of CPU per capture at 100K). A write
// now leaves the base alone and rewrites search.delta instead: an index
// segment holding every observation of each issue changed since the base
// was written (its documents point into their issue files by position),
// with those issue files' stamps. Readers search the base, less the issues
// the delta holds, and the delta as one (memindex.SearchSegs). The delta
// stays small: past DeltaLimit observations the next write compacts it
// into the base (the old write path, once per that many observations), as
// `memory rebuild` and every Batch do. The delta is derived like the index:
// deleting it costs a rebuild from the issue files, never an observation.

// DefaultDeltaLimit is how many observations the delta holds before a write
// compacts it: a write then costs at most this many documents (about 1 MB
// of index), whatever the store's size.
const DefaultDeltaLimit = 8192

// hookDeltaFactor is how far past its bound a write with a deadline (a
// hook's) lets the delta grow rather than compact it: a write then costs
// at most 65,536 observations of delta (a few tens of milliseconds).
const hookDeltaFactor = 8

// delta is search.delta, decoded.
type delta struct {
	base  uint64            // the generation of the base it applies to
	files map[int]fileStamp // the issues it holds, as their files were indexed
	ix    *memindex.Index
	// key tells this encoding from another (its head's and its index's
	// checksums): what a reader's overlay (overlay.go) was built on.
	key uint64
	// read is when withIssues began reading the files it indexed (zero
	// for a delta decoded from disk): the racy margin of a reader's
	// overlay is measured from it.
	read time.Time
}

const deltaMagic = "AXDELTA1"

// DeltaPath is the delta segment (derived; deleting it loses nothing).
func (s *Store) DeltaPath() string { return filepath.Join(s.Dir, workspace.SearchDeltaName) }

// deltaLimit is the configured limit; negative turns the delta off.
func (s *Store) deltaLimit() int {
	if s.DeltaLimit == 0 {
		return DefaultDeltaLimit
	}
	return s.DeltaLimit
}

func (d *delta) encode(idx []byte) []byte {
	le := binary.LittleEndian
	out := make([]byte, 0, len(deltaMagic)+12+len(d.files)*stampLen+len(idx)+4)
	out = append(out, deltaMagic...)
	out = le.AppendUint64(out, d.base)
	out = le.AppendUint32(out, uint32(len(d.files)))
	for _, n := range slices.Sorted(maps.Keys(d.files)) {
		f := d.files[n]
		out = le.AppendUint32(out, uint32(n))
		out = le.AppendUint64(out, uint64(f.Size))
		out = le.AppendUint64(out, uint64(f.Mod))
		out = le.AppendUint32(out, f.CRC)
	}
	// The head (files) is checked here; the index checks its own body.
	out = le.AppendUint32(out, crc32.Checksum(out, castagnoli()))
	return append(out, idx...)
}

func decodeDelta(data []byte) (*delta, error) { return decodeDeltaChecked(data, true) }

// decodeDeltaChecked is decodeDelta; without check the checksums are not
// computed (the caller checked the bytes otherwise: a reader's overlay).
func decodeDeltaChecked(data []byte, check bool) (*delta, error) {
	le := binary.LittleEndian
	head := len(deltaMagic) + 12
	if len(data) < head || string(data[:len(deltaMagic)]) != deltaMagic {
		return nil, memindex.ErrFormat
	}
	d := &delta{base: le.Uint64(data[len(deltaMagic):])}
	nf := int(le.Uint32(data[len(deltaMagic)+8:]))
	end := head + nf*stampLen
	if nf < 0 || end+4 > len(data) || (check && le.Uint32(data[end:]) != crc32.Checksum(data[:end], castagnoli())) {
		return nil, memindex.ErrFormat
	}
	d.files = make(map[int]fileStamp, nf)
	for b := data[head:end]; len(b) >= stampLen; b = b[stampLen:] {
		d.files[int(le.Uint32(b))] = fileStamp{Size: int64(le.Uint64(b[4:])), Mod: int64(le.Uint64(b[12:])), CRC: le.Uint32(b[20:])}
	}
	ix, err := memindex.Decode(data[end+4:], check) // small: checked whole
	if err != nil {
		return nil, err
	}
	d.ix = ix
	d.key = uint64(le.Uint32(data[end:]))<<32 | uint64(ix.Sum())
	return d, nil
}

// readDelta returns the delta when there is one for the base of
// generation base (nil otherwise: none, damaged, or left from an older
// base, whose issues that base already holds).
// A delta is read whatever DeltaLimit says: one written before the
// setting changed still says what the base lacks, until the next write
// takes it in.
func (s *Store) readDelta(base uint64) *delta {
	data, err := atomicfile.ReadState(s.DeltaPath())
	if err != nil {
		return nil
	}
	d, err := decodeDelta(data)
	if err != nil || d.base != base {
		return nil
	}
	return d
}

// emptyDelta is a delta over base with nothing in it yet.
func emptyDelta(base uint64) *delta {
	ix, _ := memindex.Decode(memindex.NewBuilder().Encode(memindex.Stamp{Generation: base}), false)
	return &delta{base: base, files: map[int]fileStamp{}, ix: ix}
}

// withIssues returns d with the issues of files indexed again from their
// files as they are now: the part of a write (or of a read after a
// foreign edit) that costs what changed. It returns the new delta and its
// index bytes.
func (s *Store) withIssues(d *delta, issues []int) (*delta, []byte, error) {
	drop := map[int]bool{}
	for _, n := range issues {
		drop[n] = true
	}
	b, err := d.ix.Builder(func(doc int) bool { return !drop[d.ix.IssueOf(doc)] })
	if err != nil {
		return nil, nil, err
	}
	nd := &delta{base: d.base, files: maps.Clone(d.files), read: time.Now()} // file times are compared: the real clock
	for _, n := range issues {
		f, stamp, err := s.readIssueStamped(n)
		if err != nil {
			// Left as the base or the delta had it, for repair (the
			// write path warns the same way).
			s.skip(n, err)
			if _, held := d.files[n]; held {
				return nil, nil, fmt.Errorf("%s: %w", s.IssuePath(n), err)
			}
			continue
		}
		nd.files[n] = stamp
		for i := range f.Observations {
			o := &f.Observations[i]
			e := o.Entry()
			b.Add(docOf(&e, memindex.Ref{Off: uint32(i)}), e.Summary, o.Content)
		}
	}
	idx := b.Encode(memindex.Stamp{Generation: d.base})
	ix, err := memindex.Decode(idx, false)
	if err != nil {
		return nil, nil, err
	}
	nd.ix = ix
	return nd, idx, nil
}

// readIssueStamped reads issue file n and the stamp of the bytes read (a
// missing file: empty, with Size -1).
func (s *Store) readIssueStamped(n int) (*IssueFile, fileStamp, error) {
	path := s.IssuePath(n)
	f, err := atomicfile.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &IssueFile{Version: 1, IssueNumber: n}, fileStamp{Size: -1}, nil
	}
	if err != nil {
		return nil, fileStamp{}, err
	}
	defer func() { _ = f.Close() }() // read-only
	info, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, err
	}
	data, err := atomicfile.ReadAllLimited(f, atomicfile.StateLimit)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("read %s: %w", path, err)
	}
	stamp := fileStamp{Size: info.Size(), Mod: info.ModTime().UnixNano(), CRC: crc32.Checksum(data, castagnoli())}
	if int64(len(data)) != info.Size() {
		stamp.Size = int64(len(data)) // changed while read: the next check sees it
	}
	fl, err := ParseIssueFile(path, data)
	if err != nil {
		return nil, fileStamp{}, err
	}
	if fl.IssueNumber == 0 {
		fl.IssueNumber = n
	}
	for i := range fl.Observations {
		if fl.Observations[i].IssueNumber == 0 {
			fl.Observations[i].IssueNumber = n
		}
	}
	return fl, stamp, nil
}

// syncDelta is step 2 through the delta, under the manifest lock: the
// issues are indexed again into the delta and only it is written. It
// reports false, having written nothing, when the base does not match its
// index (the full path reconciles it) or the delta would pass its limit
// (the full path compacts it).
func (s *Store) syncDelta(ctx context.Context, lk *lock.Lock, issues []int) (bool, error) {
	limit := s.deltaLimit()
	if limit < 0 || s.Dir == "" {
		return false, nil
	}
	if _, bounded := ctx.Deadline(); bounded {
		// A hook: a compaction is one pass over the whole base (3.4 s of
		// CPU and a minute of wall at 1M observations on a loaded
		// machine), past any hook's deadline. The delta takes up to
		// hookDeltaFactor times its bound, for the next command without a
		// deadline (memory add, rebuild, compact) to compact.
		limit *= hookDeltaFactor
	}
	// A base of the other mode (a switch of [memory] manifest, `memory
	// rebuild --reference`) takes a delta as well: the compaction that
	// follows converts it, not this write.
	gen, ok := s.baseGeneration()
	if !ok {
		return false, nil
	}
	d := s.readDelta(gen)
	if d == nil {
		d = emptyDelta(gen)
	}
	nd, idx, err := s.withIssues(d, issues)
	if err != nil || nd.ix.Len() > limit {
		return false, nil
	}
	if err := atomicfile.Write(s.DeltaPath(), nd.encode(idx), atomicfile.Options{Commit: lk.Commit, NoSync: true}); err != nil {
		return false, err
	}
	return true, nil
}

// baseGeneration is the generation of the base when manifest.json and
// search.idx match (stamp, size, head checksum) and the base's file record
// is of that generation too, so readers can tell the delta's issues from
// foreign edits; false otherwise.
func (s *Store) baseGeneration() (uint64, bool) {
	gen, _, ok := s.baseOf()
	return gen, ok
}

// baseOf is baseGeneration, and whether the base is a file base (files).
func (s *Store) baseOf() (gen uint64, files, ok bool) {
	if gen, files, ok := s.fileBaseGeneration(); files {
		return gen, true, ok
	}
	gen, ok = s.manifestBaseGeneration()
	return gen, false, ok
}

// manifestBaseGeneration is baseGeneration for a manifest base.
func (s *Store) manifestBaseGeneration() (uint64, bool) {
	f, err := atomicfile.OpenRegular(s.ManifestPath())
	if err != nil {
		return 0, false
	}
	defer func() { _ = f.Close() }() // read-only
	st, ok := s.baseStamp(f)
	if !ok {
		return 0, false
	}
	ix, unmap, err := memindex.Open(s.IndexPath(), false)
	if err != nil {
		return 0, false
	}
	same := ix.Stamp() == st
	unmap()
	if gen, ok := s.stampsGeneration(); !same || !ok || gen != st.Generation {
		return 0, false
	}
	return st.Generation, true
}

// baseStamp reads the stamp at the end of the open manifest f and checks
// the head checksum it carries (two small reads).
func (s *Store) baseStamp(f *os.File) (memindex.Stamp, bool) {
	info, err := f.Stat()
	if err != nil {
		return memindex.Stamp{}, false
	}
	size := info.Size()
	tail := make([]byte, min(size, 128))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return memindex.Stamp{}, false
	}
	st, prefixLen, ok := readStamp(tail, size, false)
	if !ok || prefixLen < 0 {
		return memindex.Stamp{}, false
	}
	head := make([]byte, min(prefixLen, headLen))
	if _, err := f.ReadAt(head, 0); err != nil || !headMatches(head, tail) {
		return memindex.Stamp{}, false
	}
	return st, true
}

// removeDelta drops the delta once a new base holds everything: a crash
// before the removal leaves a delta of an older base, which no one reads.
func (s *Store) removeDelta() {
	if err := os.Remove(s.DeltaPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.warn("stale search delta not removed (it is ignored): %v", err)
	}
}

// DeltaIssues lists the issues whose observations the delta holds in place
// of the manifest's rows (verify compares those issues with the delta, not
// the manifest); nil when there is no delta for the current base.
func (s *Store) DeltaIssues() map[int]bool {
	gen, ok := s.baseGeneration()
	if !ok {
		return nil
	}
	d := s.readDelta(gen)
	if d == nil {
		return nil
	}
	out := make(map[int]bool, len(d.files))
	for n := range d.files {
		out[n] = true
	}
	return out
}
