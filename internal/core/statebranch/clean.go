package statebranch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
)

// The clean record lets a sync with nothing to do skip the scan of every
// state file (an lstat each: 10,000 ledgers cost 30-90 ms, six times the
// git fetch and push around it) and the flattening of the base and remote
// trees. A sync that ended with the local state files equal to the tree of
// the commit it synchronised (nothing unmerged, nothing corrupt) writes,
// beside the stat cache in the git directory, that commit and the stat
// data of the directories the scan lists, taken before the scan, plus the
// stat data of each of this clone's trail files. The next sync finds
// nothing changed when the synced ref and the fetched remote tip are still
// that commit and every directory and trail file stats the same.
//
// Why the directories suffice: every writer of a state file (agentx's
// atomicfile, the reference tools) replaces it by a rename or creates and
// removes its lock file beside it, and a rename, a new file, a deletion or
// the directory's removal (git clean) change the directory's change time,
// which nobody can set back. The trail files are appended in place, so
// they are stat'ed one by one (a handful). Timestamps come from a coarse
// clock, so a directory changed within racyMargin before the snapshot
// could change again with the same times: such a record is not written.
// What no directory shows is a rewrite in place by a tool that neither
// renames nor locks (an editor that truncates and writes): a full scan
// runs whenever the record is older than fullScanAge, and on every sync
// that has anything else to do.
const cleanHeader = "agentx-clean 1"

// racyMargin: a directory or trail file changed this shortly before the
// snapshot may change again within the same timestamp; the record is not
// trusted then (git's "racy" entries; 2 s covers file systems with a
// 1-2 s granularity). Options.racyMargin replaces it in tests.
const racyMargin = 2 * time.Second

// fullScanAge bounds how long a record stands in for a full scan.
// Options.fullScanAge replaces it in tests.
const fullScanAge = 5 * time.Minute

// racyMargin is the sync's racy margin (see the constant).
func (s *syncer) racyMargin() time.Duration {
	if s.opt.racyMargin > 0 {
		return s.opt.racyMargin
	}
	return racyMargin
}

// fullScanAge is the sync's full-scan age (see the constant).
func (s *syncer) fullScanAge() time.Duration {
	if s.opt.fullScanAge > 0 {
		return s.opt.fullScanAge
	}
	return fullScanAge
}

// cleanRecord is what the last clean sync saw.
type cleanRecord struct {
	key  string // base ref, tracking ref, trail: the sync it stands for
	tip  gitstore.Hash
	at   int64  // when the snapshot was taken (Unix ns)
	snap string // the snapshot's lines
}

// cleanPath is the record of this kind of sync (a hook's pull has no
// trail, a whole sync has one): each kind has its own, so a pull does not
// cost the next whole sync its record. One kind's full sync cannot make
// another's record lie: what it changes locally changes a directory, and
// a new base moves the synced ref, both of which every record checks.
func (s *syncer) cleanPath() string {
	key := gitstore.BlobHash([]byte(s.cleanKey())).String()[:8]
	return gitstore.StatCachePath(s.r.GitDir, "clean-"+key, s.agentxDir)
}

func (s *syncer) cleanKey() string {
	return s.syncedRef() + " " + s.tracking() + " " + s.trail
}

// snapshot is the stat data of the directories scanLocal lists and of
// this clone's trail files, one line each, and whether any of them
// changed within racyMargin before now.
func (s *syncer) snapshot(now time.Time) (snap string, racy bool, err error) {
	var b strings.Builder
	limit := now.Add(-s.racyMargin()).UnixNano()
	line := func(kind, name string, fi fs.FileInfo) {
		if fi == nil {
			fmt.Fprintf(&b, "%s - %s\n", kind, name)
			return
		}
		st := gitstore.StatOf(fi)
		if st.Mtime >= limit || st.Ctime >= limit {
			racy = true
		}
		fmt.Fprintf(&b, "%s %d %d %d %d %o %s\n", kind, st.Size, st.Mtime, st.Ctime, st.Ino, fi.Mode(), name)
	}
	for _, dir := range stateDirs {
		// Stat, not Lstat: scanLocal's ReadDir follows a symlinked
		// directory, and a replaced target has another inode.
		fi, err := os.Stat(filepath.Join(s.agentxDir, filepath.FromSlash(dir)))
		if errors.Is(err, fs.ErrNotExist) {
			fi, err = nil, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("stat %s: %w", dir, err)
		}
		line("d", dir, fi)
	}
	if s.trail != "" {
		stateDir := filepath.Join(s.agentxDir, "state")
		entries, err := os.ReadDir(stateDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", false, fmt.Errorf("list state: %w", err)
		}
		for _, e := range entries {
			if !audit.IsFileName(e.Name()) {
				continue
			}
			fi, err := os.Lstat(filepath.Join(stateDir, e.Name()))
			if errors.Is(err, fs.ErrNotExist) {
				continue // rotated away while we listed: the next sync looks
			}
			if err != nil {
				return "", false, fmt.Errorf("stat %s: %w", e.Name(), err)
			}
			line("f", e.Name(), fi)
		}
	}
	return b.String(), racy, nil
}

// loadClean reads the record; nil when there is none or it does not parse.
func (s *syncer) loadClean() *cleanRecord {
	data, err := atomicfile.ReadRegular(s.cleanPath(), 1<<20)
	if err != nil {
		return nil
	}
	head, snap, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 4 || lines[0] != cleanHeader {
		return nil
	}
	tip, ok := strings.CutPrefix(lines[2], "tip ")
	at, err := strconv.ParseInt(strings.TrimPrefix(lines[3], "at "), 10, 64)
	if !ok || len(tip) != 40 || strings.Trim(tip, "0123456789abcdef") != "" || err != nil {
		return nil
	}
	h := gitstore.NewHash(tip)
	return &cleanRecord{key: strings.TrimPrefix(lines[1], "key "), tip: h, at: at, snap: string(snap)}
}

// dropClean removes the record: the sync that follows scans. A record
// that cannot be removed would vouch for a state it no longer describes,
// so that is an error.
func (s *syncer) dropClean() error {
	if err := os.Remove(s.cleanPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the sync's clean record: %w", err)
	}
	return nil
}

// saveClean records that the local state files, as snapshot snap (taken
// at time at, before the scan of the round that settled them) showed
// them, are the tree of tip. Nothing is written when the round left
// anything unsettled or a snapshot entry is racy. A record that cannot be
// written costs the next sync a scan, never this sync its result: the old
// one is gone already (dropClean), so the error is dropped.
func (s *syncer) saveClean(tip gitstore.Hash, rd *round) {
	if s.snap == nil || s.snap.racy || tip.IsZero() || len(rd.keepBase) > 0 ||
		len(s.res.Conflicts) > 0 || len(s.res.Corrupt) > 0 || s.res.Diverged != nil {
		return
	}
	data := fmt.Sprintf("%s\nkey %s\ntip %s\nat %d\n\n%s", cleanHeader, s.cleanKey(), tip, s.snap.at.UnixNano(), s.snap.lines)
	// A cache: a crash may lose it (the next sync scans), never leave
	// half of it (it would not parse). Write creates its directory.
	_ = atomicfile.Write(s.cleanPath(), []byte(data), atomicfile.Options{NoSync: true})
}

// taken is a snapshot and when it was taken.
type taken struct {
	lines string
	racy  bool
	at    time.Time
}

// takeSnapshot records the snapshot a round's scan starts from.
func (s *syncer) takeSnapshot() error {
	now := time.Now()
	lines, racy, err := s.snapshot(now)
	if err != nil {
		return err
	}
	s.snap = &taken{lines: lines, racy: racy, at: now}
	return nil
}

// unchanged reports whether the record shows nothing changed locally
// since the last clean sync, whose commit the synced ref still names.
func (s *syncer) unchanged(rec *cleanRecord, baseTip gitstore.Hash) (bool, error) {
	if rec == nil || rec.key != s.cleanKey() || rec.tip != baseTip || baseTip.IsZero() {
		return false, nil
	}
	now := time.Now()
	if now.Sub(time.Unix(0, rec.at)) > s.fullScanAge() || time.Unix(0, rec.at).After(now) {
		return false, nil
	}
	snap, _, err := s.snapshot(now)
	if err != nil {
		return false, err
	}
	return snap == rec.snap, nil
}

// fastPath is a sync with nothing changed locally: it fetches (unless a
// push only), and when the remote tip is the commit last synced, it is
// done without reading a tree or a file. fetched reports that the fetch
// ran, so that the full sync that follows does not fetch again.
func (s *syncer) fastPath(ctx context.Context, baseTip gitstore.Hash) (done, fetched bool, err error) {
	ok, err := s.unchanged(s.loadClean(), baseTip)
	if err != nil || !ok {
		return false, false, err
	}
	if !s.opt.PushOnly {
		if err := s.fetch(ctx); err != nil {
			return false, true, err
		}
		fetched = true
	}
	tip, err := s.r.Ref(s.tracking())
	if err != nil {
		return false, fetched, err
	}
	if tip != baseTip {
		return false, fetched, nil
	}
	s.res.Unchanged = true
	s.res.Tip = tip.String()
	return true, fetched, nil
}
