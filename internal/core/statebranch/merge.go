package statebranch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// round is the outcome of merging once.
type round struct {
	tree    map[string]gitstore.Entry // the branch's next tree
	changed bool                      // tree differs from theirs
	// keepBase holds, for files that could not be merged, the base entry
	// to merge against next time (absent: no entry), so the conflict is
	// met again instead of being resolved by accident.
	keepBase map[string]*gitstore.Entry
}

// merge merges every state file three ways and writes the local results.
func (s *syncer) merge(ctx context.Context, base, theirs map[string]gitstore.Entry) (*round, error) {
	// The snapshot comes before the scan: a write landing after it
	// changes what the next sync compares with, so the record written
	// at this round's end can never vouch for a file the scan missed.
	if err := s.takeSnapshot(); err != nil {
		return nil, err
	}
	cache := gitstore.LoadStatCache(gitstore.StatCachePath(s.r.GitDir, "statcache", s.agentxDir))
	local, err := scanLocal(ctx, s.agentxDir, s.trail, cache)
	if err != nil {
		return nil, err
	}
	s.res.Scanned += len(local)
	// Losing the cache only costs time: the next sync hashes again.
	_ = cache.Save(local, time.Now())
	rd := &round{tree: make(map[string]gitstore.Entry, len(theirs)), keepBase: map[string]*gitstore.Entry{}}
	for p, e := range theirs {
		rd.tree[p] = e
	}
	// Files equal on both sides need nothing, whatever the base says:
	// only the others are looked at again under their locks.
	var todo []string
	seen := map[string]bool{}
	consider := func(p string) {
		if seen[p] || !s.owned(p) {
			return
		}
		seen[p] = true
		t, inTheirs := theirs[p]
		o, inLocal := local[p]
		_, inBase := base[p]
		switch {
		case inTheirs && inLocal && t.Hash == o.Hash:
			return // equal on both sides
		case !inTheirs && !inLocal && !inBase:
			return
		}
		// Absent on both sides but in the base (cleaned away here, the
		// branch deleted or renamed there) is "not here yet" on both:
		// the base's copy comes back.
		todo = append(todo, p)
	}
	for p := range local {
		consider(p)
	}
	for p := range theirs {
		consider(p)
	}
	for p := range base {
		consider(p)
	}
	// Ledgers first: a hook's pull cut short by its budget (a fresh
	// clone's first one) must still have brought the clarifications that
	// wait for this agent; memory files come next, the archive last.
	sortMerges(todo, s.opt.First)
	for _, p := range todo {
		if err := s.mergeFile(ctx, p, base, theirs, rd); err != nil {
			return nil, err
		}
	}
	return rd, nil
}

// sortMerges orders the files a sync settles: first's (the hook's own
// issue), then by mergeRank, then by path.
func sortMerges(todo []string, first func(string) bool) {
	rank := func(p string) int {
		if first != nil && first(p) {
			return -1
		}
		return mergeRank(p)
	}
	sort.Slice(todo, func(i, j int) bool {
		if ri, rj := rank(todo[i]), rank(todo[j]); ri != rj {
			return ri < rj
		}
		return todo[i] < todo[j]
	})
}

// mergeRank orders the files a sync settles: ledgers, memory issue
// files, the archive, then anything else (the trail).
func mergeRank(p string) int {
	switch {
	case strings.HasPrefix(p, "state/clarifications/"):
		return 0
	case strings.HasPrefix(p, "memory/archive/"):
		return 2
	case strings.HasPrefix(p, "memory/"):
		return 1
	}
	return 3
}

// mergeFile settles one path under its lock: the local file is read again
// there, so a write that landed since the scan is merged, never lost.
//
// Absence is never a deletion: a file missing locally is "not here yet"
// and comes back from the branch (or the base), and one missing on the
// branch goes back to it. A side that does not parse takes no part: a
// local one stays as it is and is not pushed, a remote one is replaced by
// the merge of the copies that parse.
func (s *syncer) mergeFile(ctx context.Context, p string, base, theirs map[string]gitstore.Entry, rd *round) error {
	if s.ownTrail(p) {
		return s.mergeTrail(p, base, theirs, rd)
	}
	abs := filepath.Join(s.agentxDir, filepath.FromSlash(p))
	return atomicfile.WithLock(ctx, s.opt.Locks, abs, func(lk *lock.Lock) error {
		cur, err := atomicfile.ReadState(abs)
		inLocal := err == nil
		if errors.Is(err, atomicfile.ErrNotRegular) {
			s.corrupt(p, "local", "", err)
			s.keepBaseOf(p, base, rd)
			return nil // a symlink or a special file: never read through, never replaced
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read %s: %w", abs, err)
		}
		if t, inTheirs := theirs[p]; inLocal && inTheirs && gitstore.BlobHash(cur) == t.Hash {
			return nil // equal on both sides
		}
		if inLocal {
			if err := s.opt.Valid(p, cur); err != nil {
				s.corrupt(p, "local", "", err)
				s.keepBaseOf(p, base, rd)
				return nil // the branch keeps its copy; the local file stays as it is
			}
		} else {
			cur = nil
		}
		result, ok, err := s.settle(p, cur, base, theirs, rd)
		if err != nil || !ok {
			return err
		}
		s.telling(p, cur, inLocal, result)
		wrote, err := s.writeLocal(abs, lk, cur, inLocal, result)
		if err != nil {
			return err
		}
		if wrote {
			s.res.Written = append(s.res.Written, p)
			if _, inBase := base[p]; !inLocal && inBase {
				// It was here at the last sync: lost since, not new.
				s.res.Restored = append(s.res.Restored, p)
			}
			s.told(p, cur, inLocal, result)
		}
		return s.keep(p, result, true, rd)
	})
}

// settle decides path p's content from the local file ours (nil: absent,
// else parses), the branch's and the base's copies that parse; ok is false
// when the file is left as it is (nothing parses anywhere, or it could not
// be merged and is reported).
func (s *syncer) settle(p string, ours []byte, base, theirs map[string]gitstore.Entry, rd *round) (result []byte, ok bool, err error) {
	b, inBase := base[p]
	t, inTheirs := theirs[p]
	tData, err := s.validBlob(p, theirs, "remote")
	if err != nil {
		return nil, false, err
	}
	bData, err := s.validBlob(p, base, "")
	if err != nil {
		return nil, false, err
	}
	if inTheirs && tData == nil && bData != nil {
		// The branch's copy does not parse (reported): it stands for no
		// change since the base. Merged as absent, it read as the branch
		// emptying the file, and a three-way merge took that for a change
		// of every field the local copy still had as the base did (a
		// memory file's updatedAt blanked, other tools' keys dropped).
		if ours == nil {
			return bData, true, nil // missing here too: the base's copy
		}
		tData = bData
	}
	switch {
	case ours == nil && tData == nil && bData == nil:
		return nil, false, nil // nothing that parses anywhere: left as it is
	case ours == nil && (bData == nil || inBase && inTheirs && b.Hash == t.Hash):
		return tData, true, nil // only the branch has it: not here yet
	case tData == nil && !(inTheirs && ours != nil) && (bData == nil || inBase && b.Hash == gitstore.BlobHash(ours)):
		return ours, true, nil // only this clone has it: push it
	}
	// The remote goes in as "ours": on an id collision the merge renumbers
	// the "theirs" side, and only a local id is new to everyone; an id
	// already on the branch may be mirrored to an issue comment and must
	// never change.
	merged, err := s.opt.Merge(p, bData, tData, ours)
	if err != nil {
		s.res.Conflicts = append(s.res.Conflicts, Conflict{Path: p, Reason: err.Error()})
		s.keepBaseOf(p, base, rd)
		return nil, false, nil
	}
	if lost, err := s.opt.Lost(p, merged, bData, tData, ours); err != nil || len(lost) > 0 {
		return nil, false, s.refuse(p, lost, err)
	}
	s.res.Merged = append(s.res.Merged, p)
	return merged, true, nil
}

// validBlob is path p's content in files when it parses; nil when absent
// or (reported under side, unless side is "") when it does not parse.
func (s *syncer) validBlob(p string, files map[string]gitstore.Entry, side string) ([]byte, error) {
	data, err := s.blobAt(files, p)
	if err != nil || data == nil {
		return nil, err
	}
	if verr := s.opt.Valid(p, data); verr != nil {
		if side != "" {
			s.corrupt(p, side, hashString(s.theirsTip), verr)
		}
		return nil, nil
	}
	return data, nil
}

func (s *syncer) corrupt(p, side, commit string, err error) {
	s.res.Corrupt = append(s.res.Corrupt, Corrupt{Path: p, Side: side, Commit: commit, Reason: err.Error()})
}

// keepBaseOf keeps p's base entry for the next sync: a file that was not
// settled this time is met again instead of resolved by accident.
func (s *syncer) keepBaseOf(p string, base map[string]gitstore.Entry, rd *round) {
	if b, inBase := base[p]; inBase {
		rd.keepBase[p] = &b
	} else {
		rd.keepBase[p] = nil
	}
}

func (s *syncer) refuse(p string, lost []string, err error) error {
	if err != nil {
		return fmt.Errorf("check the merge of %s: %w", p, err)
	}
	shown := lost
	if len(shown) > 10 {
		shown = shown[:10]
	}
	return errcode.Wrap(errcode.CorruptState, ErrWouldLose, "%s: the merged file lacks %d records or observations that a side holds (%s): sync refused, nothing written or pushed",
		p, len(lost), strings.Join(shown, ", ")).
		WithHint("this is a defect of the merge: report it with the file; `agentx-hook sync --recover` lists what the history holds")
}

// blobAt is the content of path p in files, nil when p is not there.
func (s *syncer) blobAt(files map[string]gitstore.Entry, p string) ([]byte, error) {
	e, ok := files[p]
	if !ok {
		return nil, nil
	}
	return s.r.Blob(e.Hash)
}

// keep puts data (absent when !present) into the next tree.
func (s *syncer) keep(p string, data []byte, present bool, rd *round) error {
	old, had := rd.tree[p]
	if !present {
		if had {
			delete(rd.tree, p)
			rd.changed = true
		}
		return nil
	}
	h := gitstore.BlobHash(data)
	if had && old.Hash == h {
		return nil
	}
	if _, err := s.r.WriteBlob(data); err != nil {
		return err
	}
	rd.tree[p] = gitstore.Entry{Hash: h, Mode: gitstore.ModeRegular}
	rd.changed = true
	return nil
}

// told passes a local write to Options.Wrote.
func (s *syncer) told(rel string, cur []byte, inLocal bool, result []byte) {
	if s.opt.Wrote == nil {
		return
	}
	if !inLocal {
		cur = nil
	}
	s.opt.Wrote(rel, cur, result)
}

// telling passes a local write writeLocal is about to make to
// Options.Writing (nothing when it will write nothing).
func (s *syncer) telling(rel string, cur []byte, inLocal bool, result []byte) {
	if s.opt.Writing == nil || (result == nil && !inLocal) || (result != nil && inLocal && bytes.Equal(cur, result)) {
		return
	}
	if !inLocal {
		cur = nil
	}
	s.opt.Writing(rel, cur, result)
}

// writeLocal replaces (or removes, result nil) the local file under lk,
// unless it already holds result, and reports whether it did.
func (s *syncer) writeLocal(abs string, lk *lock.Lock, cur []byte, inLocal bool, result []byte) (bool, error) {
	if result == nil {
		if !inLocal {
			return false, nil
		}
		return true, lk.Commit(func() error {
			if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", abs, err)
			}
			return nil
		})
	}
	if inLocal && bytes.Equal(cur, result) {
		return false, nil
	}
	return true, atomicfile.Write(abs, result, atomicfile.Options{Commit: lk.Commit, NoSync: s.opt.NoSync})
}

// withBase is files with the kept base entries of unmerged files.
func withBase(files map[string]gitstore.Entry, keep map[string]*gitstore.Entry) map[string]gitstore.Entry {
	if len(keep) == 0 {
		return files
	}
	out := make(map[string]gitstore.Entry, len(files))
	for p, e := range files {
		out[p] = e
	}
	for p, e := range keep {
		if e == nil {
			delete(out, p)
		} else {
			out[p] = *e
		}
	}
	return out
}

// setBase records the base of the next merge: commit tip (whose tree is
// files), or, when some files could not be merged, a local commit on top
// of it whose tree keeps their old base.
func (s *syncer) setBase(tip gitstore.Hash, files map[string]gitstore.Entry, keep map[string]*gitstore.Entry) error {
	if len(keep) == 0 {
		if tip.IsZero() {
			// git update-ref -d refs/agentx/synced
			return s.r.RemoveRef(s.syncedRef())
		}
		return s.r.SetRef(s.syncedRef(), tip)
	}
	tree, err := s.r.WriteTree(withBase(files, keep))
	if err != nil {
		return err
	}
	var parents []gitstore.Hash
	if !tip.IsZero() {
		parents = []gitstore.Hash{tip}
	}
	c, err := s.r.WriteCommit(gitstore.Commit{Tree: tree, Parents: parents, Author: s.signature(),
		Message: localBaseMessage + " (files that could not be merged keep their old base)\n"})
	if err != nil {
		return err
	}
	return s.r.SetRef(s.syncedRef(), c)
}
