package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// The freshness gate (issue 35). changedIssues stats every issue file to
// catch files changed behind the index: 20,000 fstatat at 1M observations,
// half of a search's CPU. A search whose stat sweep ran to the end
// records, in the pending directory (local-only, beside the crash
// markers, so writing it changes neither the store's directory nor
// anything the gate compares; the hooks' files written at every run live
// there for the same reason: memanchor's index, the recall journal,
// retention's state), what it found (the issues changed behind
// the index, usually none) with the stat data of the store's directory and
// of manifest.json taken before the sweep. The next search that finds
// both stat the same, no writer's marker, and the record younger than
// freshAge takes the record's answer instead of sweeping.
//
// Why that suffices (as statebranch's clean record argues): every agentx
// write renames into the directory, and a new, deleted or renamed issue
// file (a checkout, a merge, `git clean`) changes the directory's change
// time, which nobody can set back; the reference tools rewrite
// manifest.json at every write they make, in place, which changes its
// times. A record taken within freshRacy (freshRacyFine on file systems
// with sub-second times) of a change to either is not written (a coarse
// clock could hide a second change in the same tick).
// What neither shows is an issue file rewritten in place by a tool that
// neither renames nor rewrites the manifest (an editor that truncates and
// writes): such an edit is seen once the record is older than freshAge,
// when the next search sweeps again.
//
// agentx's own writes keep the record (holdFresh, keepFresh): every
// session ends with a capture and the next begins with a search, and
// without this the first search and hook start after each write swept all
// the issue files (1M observations: 55 ms of a 12 ms search). A writer
// that finds the record valid before its first write (same key, base and
// generation, no pending marker, younger than freshAge) records it again
// after its last one, under the key its writes left, with the same at
// (freshAge still runs from the last full sweep) and the same changed set
// plus any issue it wrote that the delta does not hold as it is now (what
// a writer syncs is indexed, not changed behind the index). It does so
// only when the record is still byte for byte the one it read (a reader
// that recorded meanwhile may have seen a foreign change: its record
// stands, and the next search sweeps), and only on file systems with
// sub-second times. What this can miss: a foreign rename, creation or
// deletion of an issue file inside the writer's own window (between its
// check and its re-record, a few milliseconds) or within the same clock
// tick after it. Such a change is seen at the latest at the next full
// sweep, when the record is older than freshAge: the bound the gate
// already accepts for in-place edits.

const (
	freshName  = "search.fresh"
	freshMagic = "agentx-fresh 1"
	// freshRacy: a change this shortly before the sweep could be followed
	// by another within the same timestamp. File systems with sub-second
	// times stamp with the kernel's coarse clock (a tick: 1-10 ms), so
	// freshRacyFine is ten of the coarsest ticks; the others get 2 s (1-2 s
	// granularity). A hook that runs just after a write only sweeps.
	freshRacy     = 2 * time.Second
	freshRacyFine = 100 * time.Millisecond
	// freshAge bounds how long a record stands in for a sweep: a bare
	// in-place rewrite of an issue file is searched within this time.
	freshAge = 5 * time.Minute
)

// freshRecord is what the last complete sweep found.
type freshRecord struct {
	gen     uint64
	at      int64 // Unix ns, when the key was taken
	key     string
	changed []int
}

// standsAt reports whether the record may stand for a sweep at now: taken
// less than freshAge before it (and not after it: a clock set back).
func (r *freshRecord) standsAt(now time.Time) bool {
	age := now.UnixNano() - r.at
	return age >= 0 && age < int64(freshAge)
}

// keyOr is r's key, or none when there is no record.
func (r *freshRecord) keyOr(none string) string {
	if r == nil {
		return none
	}
	return r.key
}

func (s *Store) freshPath() string { return filepath.Join(s.pendingDir(), freshName) }

func (r *freshRecord) encode() []byte {
	nums := make([]string, len(r.changed))
	for i, n := range r.changed {
		nums[i] = strconv.Itoa(n)
	}
	return fmt.Appendf(nil, "%s\n%d\n%d\n%s\n%s\n", freshMagic, r.gen, r.at, r.key, strings.Join(nums, ","))
}

func (s *Store) readFresh() (*freshRecord, bool) {
	r, _, ok := s.readFreshRaw()
	return r, ok
}

// readFreshRaw is readFresh, and the record's bytes.
func (s *Store) readFreshRaw() (*freshRecord, []byte, bool) {
	data, err := readSmall(s.freshPath(), 1<<20)
	if err != nil {
		return nil, nil, false
	}
	r, ok := decodeFresh(data)
	return r, data, ok
}

func decodeFresh(data []byte) (*freshRecord, bool) {
	lines := strings.Split(string(data), "\n")
	if len(lines) != 6 || lines[0] != freshMagic || lines[5] != "" {
		return nil, false
	}
	r := &freshRecord{key: lines[3]}
	var err1, err2 error
	r.gen, err1 = strconv.ParseUint(lines[1], 10, 64)
	r.at, err2 = strconv.ParseInt(lines[2], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	if lines[4] != "" {
		for f := range strings.SplitSeq(lines[4], ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil, false
			}
			r.changed = append(r.changed, n)
		}
	}
	return r, true
}

// freshGate is taken before a sweep: the key to compare, and whether a
// record may be written from the sweep that follows.
type freshGate struct {
	key      string
	at       time.Time
	writable bool
}

// checkFresh returns the recorded answer for the base of generation gen
// when the gate says nothing changed since it was recorded; otherwise the
// gate to record the coming sweep with (nil when none may be).
func (s *Store) checkFresh(gen uint64, busy map[int]bool) (changed []int, ok bool, g *freshGate) {
	if len(busy) > 0 {
		return nil, false, nil // a writer between its steps: sweep
	}
	now := time.Now() // file system times are compared: the real clock
	r, rok := s.readFresh()
	rok = rok && r.gen == gen && r.standsAt(now)
	// Recorded with no manifest (a file base writes none): the directory
	// alone tells that none was created since (a new entry changes its
	// times), one stat where the key took two (issue 35).
	if dirPart, noManifest := strings.CutSuffix(r.keyOr(""), "-;"); rok && noManifest {
		if dk, _, _, dok := freshKey(s.Dir, ""); dok && dk == dirPart {
			return slices.Clone(r.changed), true, nil
		}
	}
	key, newest, fine, kok := freshKey(s.Dir, s.ManifestPath())
	if !kok {
		return nil, false, nil
	}
	racy := newest >= now.Add(-s.racyMargin(fine)).UnixNano()
	if rok && r.key == key {
		return slices.Clone(r.changed), true, nil
	}
	return nil, false, &freshGate{key: key, at: now, writable: !racy}
}

// racyMargin is how recent a file time must be for a change in the same
// tick to go unseen: freshRacyFine where the times have sub-second parts
// (fine), freshRacy otherwise; the tests' freshMargin overrides.
func (s *Store) racyMargin(fine bool) time.Duration {
	switch {
	case s.freshMargin != 0:
		return max(s.freshMargin, 0)
	case fine:
		return freshRacyFine
	}
	return freshRacy
}

// recordFresh writes what a complete sweep under g found. A failure (a
// read-only store) costs the next search its sweep, nothing else.
func (s *Store) recordFresh(g *freshGate, gen uint64, changed []int) {
	if g == nil || !g.writable {
		return
	}
	if err := os.Mkdir(s.pendingDir(), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return
	}
	// Creating the pending directory changed the store's directory: the
	// key taken before it no longer matches, and the next search records
	// again.
	r := freshRecord{gen: gen, at: g.at.UnixNano(), key: g.key, changed: slices.Sorted(slices.Values(changed))}
	_ = atomicfile.Write(s.freshPath(), r.encode(), atomicfile.Options{NoSync: true})
}

// freshHold is the record a writer found valid before its first write.
type freshHold struct {
	gen uint64
	raw []byte
	rec *freshRecord
}

// holdFresh is called by a writer before its first write to the store's
// directory: the record, when it stands for a sweep now (nil otherwise,
// and inside a Batch, whose end holds for all its writes).
func (s *Store) holdFresh() *freshHold {
	if s.batch != nil || s.Dir == "" || len(s.markedIssues()) > 0 {
		return nil
	}
	r, raw, ok := s.readFreshRaw()
	if !ok {
		return nil
	}
	key, _, fine, kok := freshKey(s.Dir, s.ManifestPath())
	if !kok || !fine || r.key != key {
		return nil
	}
	if !r.standsAt(time.Now()) {
		return nil
	}
	gen, ok := s.baseGeneration()
	if !ok || gen != r.gen {
		return nil
	}
	return &freshHold{gen: gen, raw: raw, rec: r}
}

// keepFresh records h's answer again after the writer's last write (see
// the comment at the top): wrote are the issues it wrote; those the delta
// does not hold as their files are now join the changed set. Best effort:
// any doubt leaves the record as it is, and the next search sweeps.
func (s *Store) keepFresh(h *freshHold, wrote []int) {
	if h == nil || s.batch != nil {
		return
	}
	if s.beforeKeepFresh != nil {
		s.beforeKeepFresh()
	}
	if len(s.markedIssues()) > 0 {
		return // a writer between its steps (or one that died there)
	}
	if _, raw, ok := s.readFreshRaw(); !ok || !bytes.Equal(raw, h.raw) {
		return // recorded (or removed) since: that record stands
	}
	gen, ok := s.baseGeneration()
	if !ok || gen != h.gen {
		return // a new base: the record's answer is of the old one
	}
	behind, ok := s.notIndexed(gen, wrote)
	if !ok {
		return
	}
	changed := append(slices.Clone(h.rec.changed), behind...)
	key, _, fine, kok := freshKey(s.Dir, s.ManifestPath())
	if !kok || !fine {
		return
	}
	slices.Sort(changed)
	r := freshRecord{gen: gen, at: h.rec.at, key: key, changed: slices.Compact(changed)}
	_ = atomicfile.Write(s.freshPath(), r.encode(), atomicfile.Options{NoSync: true})
}

// notIndexed are the issues of wrote whose files the index of generation
// gen (its delta, else its record of the base) does not hold as they are
// now; ok is false when that cannot be told.
func (s *Store) notIndexed(gen uint64, wrote []int) (out []int, ok bool) {
	if len(wrote) == 0 {
		return nil, true
	}
	d := s.readDelta(gen)
	var base *fileStamps
	for _, n := range wrote {
		was, held := fileStamp{}, false
		if d != nil {
			was, held = d.files[n]
		}
		if !held {
			if base == nil {
				if base, ok = s.readStamps(); !ok || base.Generation != gen {
					return nil, false
				}
			}
			was, held = base.Files[n]
		}
		if !held || !s.fileIs(n, was) {
			out = append(out, n)
		}
	}
	return out, true
}

// fileIs reports whether issue file n is as the index recorded it (size
// and modification time, as the sweep compares them; a negative size for
// a file indexed as missing).
func (s *Store) fileIs(n int, was fileStamp) bool {
	info, err := os.Lstat(s.IssuePath(n))
	if err != nil {
		return was.Size < 0 && errors.Is(err, fs.ErrNotExist)
	}
	return info.Mode().IsRegular() && info.Size() == was.Size && info.ModTime().UnixNano() == was.Mod
}
