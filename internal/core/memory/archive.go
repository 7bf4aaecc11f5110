package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/memindex"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// Retention archives what nobody recalls any more (package retention
// decides what; the store moves it). An archived observation leaves its
// issue file with a tombstone (reason "archived", into: the archive file)
// and is kept whole in archive/issue-N-archived.json, the file compaction
// keeps its originals in: `memory search --archived` finds it there and
// `memory restore ID` brings it back.

// Audit names of archiving and restoring.
const (
	OpArchive = "memory.archive"
	OpRestore = "memory.restore"
)

// ArchiveReason is the tombstone reason of an archived observation.
const ArchiveReason = "archived"

// archiveRel is where an archived observation went, as its tombstone says
// (relative to the memory directory).
func archiveRel(issue int) string {
	return "archive/issue-" + strconv.Itoa(issue) + "-archived.json"
}

// Archive moves the observations of issue that pick chooses (given the
// issue's observations, it returns the ids to archive) to the issue's
// archive file, then removes them from the issue file with a tombstone
// each. The copy is written first, so a crash in between leaves the
// observation in both places, never in neither. It returns what was
// archived.
func (s *Store) Archive(ctx context.Context, issue int, pick func(obs []Observation) []string) ([]Observation, error) {
	cur, err := s.readIssue(issue)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, id := range pick(append([]Observation(nil), cur.Observations...)) {
		ids[id] = true
	}
	var arch []Observation
	for _, o := range cur.Observations {
		if ids[o.ID] {
			arch = append(arch, o)
		}
	}
	if len(arch) == 0 {
		return nil, nil
	}
	hold := s.holdFresh()
	if err := s.archive(ctx, issue, arch); err != nil {
		return nil, err
	}
	var gone []Observation
	marker, err := s.updateIssue(ctx, issue, func(f *IssueFile) (bool, error) {
		gone = gone[:0]
		kept := f.Observations[:0]
		var dead []tombstone.Tombstone
		for _, o := range f.Observations {
			if ids[o.ID] {
				gone = append(gone, o)
				dead = append(dead, s.tombstoneOf(o, ArchiveReason, archiveRel(issue)))
				continue
			}
			kept = append(kept, o)
		}
		f.Observations = kept
		if len(gone) == 0 {
			return false, nil
		}
		return true, s.bury(f, dead...)
	}, func() (audit.Entry, bool) { return s.archivedEntry(issue, gone), true })
	if err != nil {
		return nil, err
	}
	// The line before the marker goes, as Remove's.
	if len(gone) > 0 {
		s.audit(ctx, s.archivedEntry(issue, gone))
	}
	if err := s.finish(ctx, issue, marker); err != nil {
		return gone, err
	}
	s.keepFresh(hold, []int{issue})
	return gone, nil
}

// ArchivedIssues lists the issues with an archive file, ascending.
func (s *Store) ArchivedIssues() ([]int, error) {
	entries, err := os.ReadDir(filepath.Join(s.Dir, "archive"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), "-archived.json")
		if !ok || e.IsDir() {
			continue
		}
		if n, ok := issueFileNumber(name + ".json"); ok {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// GetArchived reads the archive of issue (none: empty).
func (s *Store) GetArchived(issue int) ([]Observation, error) {
	f, err := readIssueAt(s.ArchivePath(issue), issue)
	if err != nil {
		return nil, err
	}
	return f.Observations, nil
}

// SearchArchived searches the archive files (originals of compaction and
// what retention archived) that are not in the store any more: the
// filters of q apply, and with Text an observation must share a term with
// it, ranked by how many terms it matches, then newest first. The archive
// is read whole: it is searched on demand, never by the hooks.
func (s *Store) SearchArchived(ctx context.Context, q Query) ([]Row, error) {
	issues, err := s.ArchivedIssues()
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, t := range memindex.Terms(q.Text) {
		want[t] = true
	}
	var rows []Row
	for _, n := range issues {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if (q.Issue == 0 && !q.IssueSet) || n == q.Issue {
			rows = append(rows, s.archivedRows(n, q, want)...)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Score != rows[j].Score {
			return rows[i].Score > rows[j].Score
		}
		return rows[i].Timestamp > rows[j].Timestamp
	})
	limit := q.Limit
	if limit == 0 {
		limit = 20
	}
	// What was restored is in the store again: left out, reading only the
	// issue files of the rows shown.
	live := map[int]map[string]bool{}
	out := rows[:0]
	for _, r := range rows {
		if limit > 0 && len(out) == limit {
			break
		}
		ids, ok := live[r.IssueNumber]
		if !ok {
			if f, err := s.readIssue(r.IssueNumber); err == nil {
				ids = idSet(f.Observations)
			}
			live[r.IssueNumber] = ids
		}
		if !ids[r.ID] {
			out = append(out, r)
		}
	}
	return out, nil
}

// archivedRows are the rows of issue n's archive that q finds.
func (s *Store) archivedRows(n int, q Query, want map[string]bool) []Row {
	arch, err := s.GetArchived(n)
	if err != nil {
		s.leftOut(fmt.Sprintf("%v; searched the other archives", err))
		return nil
	}
	var rows []Row
	for i := range arch {
		o := &arch[i]
		if !archivedMatches(o, q) {
			continue
		}
		score := termScore(o, want)
		if len(want) > 0 && score == 0 {
			continue
		}
		rows = append(rows, Row{Entry: o.Entry(), Score: score})
	}
	return rows
}

// termScore is how many of the wanted terms o holds.
func termScore(o *Observation, want map[string]bool) float64 {
	if len(want) == 0 {
		return 0
	}
	seen := map[string]bool{}
	for _, t := range memindex.Terms(o.Summary + "\n" + o.Content) {
		if want[t] {
			seen[t] = true
		}
	}
	return float64(len(seen))
}

func archivedMatches(o *Observation, q Query) bool {
	if q.Agent != "" && o.Agent != q.Agent || q.Category != "" && o.Category != q.Category {
		return false
	}
	if q.Since.IsZero() && q.Until.IsZero() {
		return true
	}
	t, err := clock.Parse(o.Timestamp)
	return err == nil && (q.Since.IsZero() || !t.Before(q.Since)) && (q.Until.IsZero() || !t.After(q.Until))
}

// Restore brings an archived observation back into its issue file, as it
// was archived (its recall count and hash kept), and records the revival
// among the file's tombstones so a merge with a copy that still carries
// the archiving does not remove it again. The archive keeps its copy
// (archives only grow). It is NotFound when no archive holds id, and
// InvalidInput when the observation is in the store already.
func (s *Store) Restore(ctx context.Context, id string) (*Observation, error) {
	issues, err := s.ArchivedIssues()
	if err != nil {
		return nil, err
	}
	for _, n := range issues {
		arch, err := s.GetArchived(n)
		if err != nil {
			return nil, err
		}
		for _, o := range arch {
			if o.ID == id {
				return s.restore(ctx, n, o)
			}
		}
	}
	return nil, errcode.New(errcode.NotFound, "no archived observation %q", id)
}

func (s *Store) restore(ctx context.Context, issue int, o Observation) (*Observation, error) {
	present := false
	hold := s.holdFresh()
	marker, err := s.updateIssue(ctx, issue, func(f *IssueFile) (bool, error) {
		for _, have := range f.Observations {
			if have.ID == o.ID {
				present = true
				return false, nil
			}
		}
		o.sealIfMissing()
		f.Observations = append(f.Observations, o)
		back := s.tombstoneOf(o, "restored", "")
		back.Revived = true
		have, err := f.Tombstones(s.IssuePath(issue))
		if err != nil {
			return false, err
		}
		for _, t := range have {
			// Of two entries for one thing the later stands: the revival
			// is later than the archiving even within one millisecond.
			if t.Kind == back.Kind && t.ID == back.ID && t.At >= back.At {
				if at, err := clock.Parse(t.At); err == nil {
					back.At = clock.Format(at.Add(time.Millisecond))
				}
			}
		}
		return true, s.bury(f, back)
	}, func() (audit.Entry, bool) { return s.restoredEntry(issue, o), true })
	if err != nil {
		return nil, err
	}
	if present {
		return nil, errcode.New(errcode.InvalidInput, "observation %s is in issue #%d already, not archived", o.ID, issue)
	}
	// The line before the marker goes, as Remove's.
	s.audit(ctx, s.restoredEntry(issue, o))
	if err := s.finish(ctx, issue, marker); err != nil {
		return &o, err
	}
	s.keepFresh(hold, []int{issue})
	return &o, nil
}

// archivedEntry is the line of observations gone moved from issue's file
// to its archive.
func (s *Store) archivedEntry(issue int, gone []Observation) audit.Entry {
	ids, before := hashes(gone)
	return s.withActor(audit.Entry{Op: OpArchive, Issue: issue, IDs: ids, Before: before})
}

// restoredEntry is the line of observation o brought back into issue.
func (s *Store) restoredEntry(issue int, o Observation) audit.Entry {
	ids, after := hashes([]Observation{o})
	return s.withActor(audit.Entry{Op: OpRestore, Issue: issue, IDs: ids, After: after})
}
