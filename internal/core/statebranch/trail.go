package statebranch

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Each clone's audit trail lives on the state branch under
// audit.WritersDir/WRITER-ID/: audit.jsonl and its rotated
// audit-YYYY-MM.jsonl, the same files as the clone's
// `.agentx/state/audit*.jsonl`. One directory per writer, which only that
// writer changes, so no two writers ever append to one file and no trail
// is ever merged. The Action's own trail is state/audit*.jsonl beside it.

// TrailDir is the branch directory of writer id's trail.
func TrailDir(id string) string { return audit.WritersDir + "/" + id }

// validWriterID accepts what newWriterID makes (and longer hex ids): the
// id becomes a path on the branch, so nothing else is taken.
func validWriterID(id string) bool {
	if len(id) < 16 || len(id) > 64 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

// WriterID is the workspace's writer id (.agentx/state/writer-id), made
// once at random when create is set and there is none; "" when there is
// none and create is not set. It is local only (never committed, never on
// the branch as a file): a clone of the repository is a new writer.
func WriterID(agentxDir string, create bool, noSync bool) (string, error) {
	p := filepath.Join(agentxDir, "state", workspace.WriterIDName)
	data, err := atomicfile.ReadRegular(p, 256)
	switch {
	case err == nil:
		id := strings.TrimSpace(string(data))
		if !validWriterID(id) {
			return "", errcode.New(errcode.CorruptState, "%s does not hold a writer id (16 to 64 lowercase hex digits)", p).
				WithHint("delete it: the next sync makes a new one, and this clone's audit trail goes under the new id on the state branch")
		}
		return id, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read %s: %w", p, err)
	case !create:
		return "", nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a writer id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	// Only a sync makes it, under the repository's sync lock.
	if err := atomicfile.Write(p, []byte(id+"\n"), atomicfile.Options{NoSync: noSync}); err != nil {
		return "", err
	}
	return id, nil
}

// ownTrail reports whether branch path p is one of this clone's trail
// files (s.trail is "" when the sync carries no trail).
func (s *syncer) ownTrail(p string) bool {
	if s.trail == "" {
		return false
	}
	name, ok := strings.CutPrefix(p, s.trail)
	return ok && !strings.Contains(name, "/") && audit.IsFileName(name)
}

// owned reports whether branch path p is this clone's to merge: a state
// file, or one of its own trail files. Everything else on the branch (the
// Action's trail, other writers' trails, the Action's sync state) passes
// through untouched.
func (s *syncer) owned(p string) bool { return IsStatePath(p) || s.ownTrail(p) }

// completeLines is data up to its last newline: a line being appended
// right now is pushed with the next sync, never cut short on the branch.
func completeLines(data []byte) []byte {
	return data[:bytes.LastIndexByte(data, '\n')+1]
}

// mergeTrail puts this clone's trail file onto the branch. The local file
// is read, never written: appenders hold it open (flock, O_APPEND) and a
// replacement would lose their lines. Only this clone writes the path, so
// ours is pushed, as long as it extends the branch's copy: a trail is only
// ever appended to, or (audit.jsonl) rotated away into a monthly file. A
// local file that no longer holds what the branch has (edited, truncated,
// restored from an older copy, or another clone writing under the same
// id) is reported and the branch's copy kept, so the branch holds every
// line a clone ever pushed. A local file that is gone is left on the
// branch: a sync never removes a trail.
func (s *syncer) mergeTrail(p string, base, theirs map[string]gitstore.Entry, rd *round) error {
	abs := filepath.Join(s.agentxDir, "state", path.Base(p))
	data, rotated, ok, err := s.readTrail(abs)
	if err != nil || !ok {
		return err
	}
	t, inTheirs := theirs[p]
	if !inTheirs {
		return s.keepTrail(p, data, rotated, rd)
	}
	if t.Hash == gitstore.BlobHash(data) {
		return nil
	}
	tData, err := s.r.Blob(t.Hash)
	if err != nil {
		return err
	}
	if bytes.HasPrefix(data, tData) || path.Base(p) == audit.FileName && rotatedAway(rotated, tData) {
		return s.keepTrail(p, data, rotated, rd)
	}
	b, inBase := base[p]
	reason := "the branch's copy of this clone's trail changed since the last sync and the local file does not extend it: another clone writes under the same .agentx/state/writer-id (a copied .agentx/state/?); delete the writer-id of one of them"
	if inBase && b.Hash == t.Hash {
		reason = "the local trail file no longer holds the lines already on the branch (edited, truncated or restored from an older copy?); a trail is only ever extended, so the branch's copy is kept: `agentx-hook verify` shows what changed locally, and deleting .agentx/state/writer-id goes on under a new id"
	}
	s.res.Conflicts = append(s.res.Conflicts, Conflict{Path: p, Reason: reason})
	if inBase {
		rd.keepBase[p] = &b
	} else {
		rd.keepBase[p] = nil
	}
	return nil
}

// readTrail reads the local trail file abs and, when it is the current
// file (audit.jsonl), the rotated files it may chain to, as one snapshot:
// an append can rotate audit.jsonl away at any moment (by month, or by
// size every few hundred lines), and a listing and a read on either side
// of it would push a file whose first line follows a line not pushed, or
// the same lines twice. The current file's inode is the same before the
// listing and after the read, or it is all done again.
func (s *syncer) readTrail(abs string) (data []byte, rotated []string, ok bool, err error) {
	if filepath.Base(abs) != audit.FileName {
		data, ok, err = readTrailFile(abs)
		return data, nil, ok, err
	}
	for attempt := 0; ; attempt++ {
		before, serr := os.Lstat(abs)
		files, err := audit.Files(filepath.Dir(abs))
		if err != nil {
			return nil, nil, false, err
		}
		rotated = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == audit.FileName })
		if data, ok, err = readTrailFile(abs); err != nil || !ok {
			return nil, nil, ok, err
		}
		after, aerr := os.Lstat(abs)
		if serr == nil && aerr == nil && os.SameFile(before, after) || attempt == 8 {
			return data, rotated, true, nil
		}
	}
}

// keepTrail puts trail file p (data) in the round's tree, and with the
// current file the rotated ones it may chain to (rotated, read in the same
// snapshot, readTrail) that the branch lacks. A rotated file never changes
// again: one already on the branch is left as it is.
func (s *syncer) keepTrail(p string, data []byte, rotated []string, rd *round) error {
	if err := s.keep(p, data, true, rd); err != nil {
		return err
	}
	for _, f := range rotated {
		bp := s.trail + filepath.Base(f)
		if _, have := rd.tree[bp]; have {
			continue
		}
		rdata, ok, err := readTrailFile(f)
		if err != nil {
			return err
		}
		if ok {
			if err := s.keep(bp, rdata, true, rd); err != nil {
				return err
			}
		}
	}
	return nil
}

// readTrailFile reads a local trail file up to its last complete line; ok
// is false when it is gone or not a regular file (never followed).
func readTrailFile(abs string) (data []byte, ok bool, err error) {
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.Mode().IsRegular() {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("stat %s: %w", abs, err)
	}
	data, err = atomicfile.ReadRegular(abs, atomicfile.StateLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", abs, err)
	}
	return completeLines(data), true, nil
}

// rotatedAway reports whether one of the rotated files begins with
// pushed, the branch's audit.jsonl: the month turned, or the file grew
// past its size, and those lines moved there.
func rotatedAway(rotated []string, pushed []byte) bool {
	// Newest first: the file audit.jsonl was rotated into is the last
	// rotated one but for a sync missed in between.
	for i := len(rotated) - 1; i >= 0; i-- {
		if data, ok, err := readTrailFile(rotated[i]); err == nil && ok && bytes.HasPrefix(data, pushed) {
			return true
		}
	}
	return false
}

// setTrail gives a sync that pushes its clone's trail directory, making
// the writer id when there is a trail to push and no id yet. A pull has no
// use for it: other writers' trails stay on the branch.
func (s *syncer) setTrail() error {
	if s.opt.PullOnly {
		return nil
	}
	files, err := audit.Files(filepath.Join(s.agentxDir, "state"))
	if err != nil {
		return err
	}
	id, err := WriterID(s.agentxDir, len(files) > 0, s.opt.NoSync)
	if err != nil || id == "" {
		return err
	}
	s.trail = TrailDir(id) + "/"
	s.res.Trail = TrailDir(id)
	return nil
}
