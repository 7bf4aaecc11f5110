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
	"strconv"
	"strings"
	"sync"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// The search index is validated per issue file, not only through the
// manifest: a hand edit, another tool, or a git checkout or merge of
// memory files changes an issue file's content without the manifest
// knowing, and the index would go on answering from the old text (even
// after a later `memory add` to that issue, which appended to its rows).
// Every index write records, beside it (workspace.SearchFilesName), each
// issue file's size, modification time and the CRC-32C of its bytes as
// indexed, bound to the index's generation. Readers and writers compare the
// directory against it: a file whose size or time differ is read and
// hashed, and one whose content differs is indexed again (in memory for a
// reader, written by a writer). A store without the record (written by an
// older agentx or another tool) is trusted as before until its next write
// records it.

// fileStamp is one issue file as indexed.
type fileStamp struct {
	Size int64
	Mod  int64 // modification time, ns since the epoch
	CRC  uint32
}

// fileStamps is the record: the generation of the index it belongs to and
// the issue files by number. On disk (a search reads it, so it is small
// and quick to decode): the magic, the generation, then per issue file its
// number, size, time and CRC, little-endian, 28 bytes each.
type fileStamps struct {
	Generation uint64
	Files      map[int]fileStamp
}

const (
	stampsMagic = "AXSF0001"
	stampLen    = 4 + 8 + 8 + 4
)

// castagnoli is built on first use, not at start: making it fills 8 KB
// of tables (0.16 ms, the costliest initialiser of agentx-hook), which
// `version`, the monitor and most hooks never need.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// FilesPath is the per-file record of the search index.
func (s *Store) FilesPath() string { return filepath.Join(s.Dir, workspace.SearchFilesName) }

func (s *Store) readStamps() (*fileStamps, bool) {
	data, err := atomicfile.ReadState(s.FilesPath())
	if err != nil || len(data) < len(stampsMagic)+8 || string(data[:len(stampsMagic)]) != stampsMagic ||
		(len(data)-len(stampsMagic)-8)%stampLen != 0 {
		return nil, false
	}
	le := binary.LittleEndian
	rest := data[len(stampsMagic):]
	rec := &fileStamps{Generation: le.Uint64(rest), Files: make(map[int]fileStamp, (len(rest)-8)/stampLen)}
	for b := rest[8:]; len(b) >= stampLen; b = b[stampLen:] {
		rec.Files[int(le.Uint32(b))] = fileStamp{Size: int64(le.Uint64(b[4:])), Mod: int64(le.Uint64(b[12:])), CRC: le.Uint32(b[20:])}
	}
	return rec, true
}

// stampsGeneration is the generation the record is of, read from its
// head alone (a base's check needs no more).
func (s *Store) stampsGeneration() (uint64, bool) {
	f, err := atomicfile.OpenRegular(s.FilesPath())
	if err != nil {
		return 0, false
	}
	defer func() { _ = f.Close() }() // read-only
	info, err := f.Stat()
	if err != nil || info.Size() < int64(len(stampsMagic)+8) || (info.Size()-int64(len(stampsMagic))-8)%stampLen != 0 {
		return 0, false
	}
	head := make([]byte, len(stampsMagic)+8)
	if _, err := io.ReadFull(f, head); err != nil || string(head[:len(stampsMagic)]) != stampsMagic {
		return 0, false
	}
	return binary.LittleEndian.Uint64(head[len(stampsMagic):]), true
}

func (rec *fileStamps) encode() []byte {
	le := binary.LittleEndian
	out := make([]byte, 0, len(stampsMagic)+8+len(rec.Files)*stampLen)
	out = append(out, stampsMagic...)
	out = le.AppendUint64(out, rec.Generation)
	for _, n := range slices.Sorted(maps.Keys(rec.Files)) {
		f := rec.Files[n]
		out = le.AppendUint32(out, uint32(n))
		out = le.AppendUint64(out, uint64(f.Size))
		out = le.AppendUint64(out, uint64(f.Mod))
		out = le.AppendUint32(out, f.CRC)
	}
	return out
}

// stampOf reads issue file n: its stamp (the bytes hashed are those read).
func (s *Store) stampOf(n int) (fileStamp, error) {
	f, err := atomicfile.OpenRegular(s.IssuePath(n))
	if err != nil {
		return fileStamp{}, err
	}
	defer func() { _ = f.Close() }() // read-only
	info, err := f.Stat()
	if err != nil {
		return fileStamp{}, err
	}
	h := crc32.New(castagnoli())
	buf := make([]byte, 64<<10)
	for {
		k, err := f.Read(buf)
		h.Write(buf[:k]) //nolint:errcheck // a hash's Write never fails
		if err != nil {
			break
		}
	}
	return fileStamp{Size: info.Size(), Mod: info.ModTime().UnixNano(), CRC: h.Sum32()}, nil
}

// changedIssues compares the issue files with the record of the index of
// generation gen: the issues whose content is not what the index holds
// (changed, new, or gone). known is false when there is no record for gen
// (nothing can be said; the index is trusted as before). The freshness
// gate (fresh.go) answers instead of the sweep when nothing a writer
// touches changed since a sweep recorded its answer; record says this
// sweep may record one; busy are the issues of the pending markers
// (markedIssues).
func (s *Store) changedIssues(gen uint64, d *delta, record bool, busy map[int]bool) (changed []int, known bool) {
	// The gate is taken before the record is read, as the sweep's answer
	// holds for the store as it was then.
	prev, fresh, gate := s.checkFresh(gen, busy)
	if fresh {
		return prev, true
	}
	rec, ok := s.readStamps()
	if !ok || rec.Generation != gen {
		return nil, false
	}
	if d != nil {
		// The delta's issues are compared with the files as it indexed them.
		maps.Copy(rec.Files, d.files)
	}
	seen := 0
	if s.onSweep != nil {
		s.onSweep()
	}
	err := eachIssueFile(s.Dir, func(n int, size, mod int64, err error) {
		was, had := rec.Files[n]
		if had {
			seen++
		}
		switch {
		case busy[n]: // a writer between its steps syncs it (or the repair does)
		case err != nil:
			changed = append(changed, n)
		case had && size == was.Size && mod == was.Mod:
		default:
			// Touched (a checkout writes the same bytes again) or changed.
			if now, err := s.stampOf(n); err != nil || !had || now.CRC != was.CRC || now.Size != was.Size {
				changed = append(changed, n)
			}
		}
	})
	if err != nil {
		return nil, false
	}
	if seen != len(rec.Files) {
		for n, f := range rec.Files {
			if f.Size < 0 {
				continue // indexed as missing (the delta's)
			}
			if _, err := os.Lstat(s.IssuePath(n)); errors.Is(err, fs.ErrNotExist) {
				changed = append(changed, n)
			}
		}
	}
	if record {
		s.recordFresh(gate, gen, changed)
	}
	return changed, true
}

// markedIssues are the issues with a pending marker: a writer is between
// its issue write and its manifest write (or died there, and the repair
// of unfinished writes takes over).
func (s *Store) markedIssues() map[int]bool { return markedOf(s.pendingNames()) }

// markedOf is markedIssues of the pending directory's names.
func markedOf(names []string) map[int]bool {
	var out map[int]bool
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, "issue-")
		if !ok {
			continue // search.fresh, search.overlay
		}
		num, _, _ := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(num); err == nil {
			if out == nil {
				out = map[int]bool{}
			}
			out[n] = true
		}
	}
	return out
}

// writeStamps records the issue files as they are now, for the index of
// generation gen: files whose size and time match the previous record keep
// their hash, the others are read. A failure costs the validation, never
// a wrong answer: without a record the index is trusted as before.
func (s *Store) writeStamps(gen uint64) {
	prev, _ := s.readStamps()
	rec := fileStamps{Generation: gen, Files: map[int]fileStamp{}}
	err := eachIssueFile(s.Dir, func(n int, size, mod int64, err error) {
		if prev != nil && err == nil {
			if was, ok := prev.Files[n]; ok && size == was.Size && mod == was.Mod {
				rec.Files[n] = was
				return
			}
		}
		if st, err := s.stampOf(n); err == nil {
			rec.Files[n] = st
		} // unreadable: left out, so the next validation reads it again
	})
	if err != nil {
		return
	}
	if err := atomicfile.Write(s.FilesPath(), rec.encode(), atomicfile.Options{NoSync: true}); err != nil {
		s.warn("%v", fmt.Errorf("search index record not saved (the next write records it): %w", err))
	}
}

// restamped is an issue file rewritten in a way the search index does not
// see (recall counts: neither the manifest nor the index holds them).
type restamped struct {
	issue         int
	before, after fileStamp
}

// restamp records the rewritten files' new stamps, so readers keep using
// the index as it is instead of indexing those files again in memory at
// every search until the next write (0.85 s of CPU per search at 100K
// observations after a recall-count fold). Only a file the record showed
// indexed as it was before the rewrite, and that nobody changed since, is
// restamped: any other change is still found. Under the manifest lock,
// like every other write of the record; without it nothing is recorded
// (a reader's re-index costs time, never a wrong answer).
func (s *Store) restamp(ctx context.Context, files []restamped) {
	if len(files) == 0 {
		return
	}
	_ = s.withLock(ctx, s.ManifestPath(), func(lk *lock.Lock) error {
		rec, ok := s.readStamps()
		if !ok {
			return nil
		}
		s.restampDelta(lk, rec.Generation, files)
		changed := false
		for _, f := range files {
			if rec.Files[f.issue] != f.before {
				continue
			}
			if now, err := s.stampOf(f.issue); err != nil || now != f.after {
				continue
			}
			rec.Files[f.issue] = f.after
			changed = true
		}
		if !changed {
			return nil
		}
		if err := atomicfile.Write(s.FilesPath(), rec.encode(), atomicfile.Options{NoSync: true}); err != nil {
			s.warn("%v", fmt.Errorf("search index record not saved (the next write records it): %w", err))
		}
		return nil
	})
}

// refreshChanged indexes again, in st, the issue files whose content
// changed since st's index was written; it reports whether st changed.
func (s *Store) refreshChanged(st *state) (bool, error) {
	changed, known := s.changedIssues(st.stamp.Generation, nil, false, s.markedIssues())
	// The delta's issues are changed behind the base by design: a state
	// built from the base takes them in (idempotent when it holds them).
	if d := s.readDelta(st.stamp.Generation); d != nil {
		for n := range d.files {
			if !slices.Contains(changed, n) {
				changed = append(changed, n)
			}
		}
		slices.Sort(changed)
		known = true
	}
	if !known || len(changed) == 0 {
		return false, nil
	}
	if st.files {
		return true, s.reindexFiles(st, changed)
	}
	if len(changed) > batchRebuildOver {
		// Many files (a checkout, a merge, the delta's issues at a
		// compaction): one pass over the manifest's rows for all of them,
		// analysing only their texts.
		want := make(map[int][]Observation, len(changed))
		for _, n := range changed {
			f, err := s.readIssue(n)
			if err != nil {
				s.skip(n, err)
				continue
			}
			want[n] = f.Observations
		}
		if ok, err := s.rerenderMany(st, want); ok || err != nil {
			return true, err
		}
		// A manifest laid out otherwise: one reconcile from the files
		// costs less than parsing and re-rendering it for each.
		m, err := ParseManifest(s.ManifestPath(), st.data)
		if err != nil {
			m = nil
		}
		ns, _, err := s.reconcile(m, st.stamp.Generation)
		if err != nil {
			return true, err
		}
		*st = *ns
		return true, nil
	}
	for _, n := range changed {
		f, err := s.readIssue(n)
		if err != nil {
			s.skip(n, err)
			continue
		}
		if err := s.rerender(st, n, f.Observations); err != nil {
			return true, err
		}
	}
	return true, nil
}

// restampDelta is restamp for the issues the delta holds: their stamps are
// in the delta, which is written again with them.
func (s *Store) restampDelta(lk *lock.Lock, gen uint64, files []restamped) {
	d := s.readDelta(gen)
	if d == nil {
		return
	}
	changed := false
	for _, f := range files {
		if was, ok := d.files[f.issue]; !ok || was != f.before {
			continue
		}
		if now, err := s.stampOf(f.issue); err != nil || now != f.after {
			continue
		}
		d.files[f.issue] = f.after
		changed = true
	}
	if !changed {
		return
	}
	data, err := atomicfile.ReadState(s.DeltaPath())
	if err != nil {
		return
	}
	// The index part is unchanged: the head is written again before it.
	idx := data[len(data)-d.ix.Size():]
	if err := atomicfile.Write(s.DeltaPath(), d.encode(idx), atomicfile.Options{Commit: lk.Commit, NoSync: true}); err != nil {
		s.warn("%v", fmt.Errorf("search delta not restamped (searches index those files again): %w", err))
	}
}
