package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memindex"
)

// EventSink receives memory events (events.Log in the CLI).
type EventSink interface {
	Append(ctx context.Context, typ string, payload any) error
}

// Store is the observation store of one workspace.
//
// Write protocol, for each issue touched:
//  1. under the issue file's lock: read, change, leave a pending marker,
//     write the issue file atomically; release;
//  2. under the manifest's lock: bring the manifest's entries for that
//     issue in line with the issue file (append, or re-render), write the
//     manifest, then the search index; release;
//  3. remove the marker.
//
// Neither lock is ever held while waiting for the other, so no order
// (ours, the SPEC's, the old implementation's manifest-then-issue) can
// deadlock against it. Step 2 is idempotent, so a crash between 1 and 2
// is repaired by running step 2 again: the next access that finds an old
// marker does so.
type Store struct {
	// Dir is `.agentx/memory/`.
	Dir   string
	Locks *lock.Locker
	Clock clock.Clock
	// Events, when set, receives a memory-stored event per agent and issue.
	Events EventSink
	// Warn, when set, receives warnings (corrupt files skipped, rebuilds),
	// printf-style like every Warn hook of the commands that wire it.
	Warn func(format string, args ...any)
	// Skipped, when set, is told of each issue or archive file left out
	// because it could not be read, in Warn's words: a caller that answers
	// with what it found (the MCP server's memory_search) names it beside
	// the answer. Warn hears it too, unless Skipped says it heard those
	// words already (false).
	Skipped func(warning string) bool
	// Progress, when set, is told how far a rebuild over many issue files
	// has come.
	Progress func(done, total int)
	// NoSync skips fsync (tests and benchmarks of the logic only).
	NoSync bool
	// DeltaLimit is how many observations the delta (delta.go) holds
	// before a write compacts it into manifest.json and search.idx: 0 is
	// DefaultDeltaLimit; negative turns the delta off, so every write
	// renders the whole manifest as the reference tools expect it
	// (`[memory] manifest = "reference"`).
	DeltaLimit int
	// ReferenceManifest renders manifest.json in the reference tools'
	// exact layout (2-space indent, about 350 bytes an entry) whenever it
	// is written, as a negative DeltaLimit does; otherwise it is written in
	// the compact layout (layout.go), which every JSON reader, the old
	// tools included, reads the same (`memory rebuild --reference`).
	ReferenceManifest bool
	// FileBase writes no manifest.json: the base is search.idx alone, its
	// rows in the issue files (filebase.go; `[memory] manifest = "index"`,
	// agentx-hook's default). Readers read either base whatever it says.
	FileBase bool
	// Audit, when set, gets one line per write that landed (audit.go);
	// Actor is who the line names for removals, compactions and rebuilds
	// (stores name the observations' agents), AuditOp how stores are
	// named (default memory.capture).
	Audit   *audit.Trail
	Actor   string
	AuditOp string

	// freshMargin replaces the freshness gate's racy margin (fresh.go) in
	// tests: negative records right after a write, large never does.
	freshMargin time.Duration
	// beforeKeepFresh runs in keepFresh before it looks (tests: a foreign
	// change inside a writer's window); onSweep at each stat sweep of
	// the issue files a search makes (tests count them).
	beforeKeepFresh, onSweep func()
	// onOverlay is told, at each search that indexes files changed behind
	// the index, whether it took a reader's overlay (overlay.go) or
	// indexed them (tests).
	onOverlay func(reused bool)
	// afterIssueWrite simulates a crash between steps 1 and 2 in tests.
	afterIssueWrite func() error
	// slow is the last view readers built from the files (openSlow); nil
	// (a Store made without New) disables it.
	slow *slowCache
	// maps keeps the index mapped from one search to the next (nil: a
	// Store made without New maps it at each search).
	maps *memindex.Maps
	// batch, inside Batch, defers step 2 of every write to Batch's end.
	batch *batch
}

// New returns the store rooted at dir.
func New(dir string, locks *lock.Locker, clk clock.Clock) *Store {
	return &Store{Dir: dir, Locks: locks, Clock: clk, slow: &slowCache{}, maps: &memindex.Maps{}}
}

// markerStale is how old a pending marker must be before another process
// repairs for it: a live writer finishes step 2 within milliseconds, and
// repairing early would only duplicate its work.
const markerStale = 2 * time.Second

// ManifestPath is manifest.json.
func (s *Store) ManifestPath() string { return filepath.Join(s.Dir, "manifest.json") }

// IssuePath is issue-N.json.
func (s *Store) IssuePath(issue int) string {
	return filepath.Join(s.Dir, issueFileName(issue))
}

// issueFileName is issue N's file's name in the store's directory.
func issueFileName(issue int) string { return "issue-" + strconv.Itoa(issue) + ".json" }

// IndexPath is the derived search index; deleting it loses nothing.
func (s *Store) IndexPath() string { return filepath.Join(s.Dir, "search.idx") }

// ArchivePath is where compaction moves originals of issue N.
func (s *Store) ArchivePath(issue int) string {
	return filepath.Join(s.Dir, "archive", "issue-"+strconv.Itoa(issue)+"-archived.json")
}

func (s *Store) pendingDir() string { return filepath.Join(s.Dir, "pending") }

func (s *Store) now() time.Time {
	if s.Clock == nil {
		return time.Now()
	}
	return s.Clock.Now()
}

func (s *Store) warn(format string, args ...any) {
	if s.Warn != nil {
		s.Warn(format, args...)
	}
}

func (s *Store) writeOpts(lk *lock.Lock) atomicfile.Options {
	return atomicfile.Options{Commit: lk.Commit, NoSync: s.NoSync}
}

// withLock runs fn under target's lock (atomicfile.WithLock: retried when
// the lock was taken over, temporaries of a dead holder removed). The
// search index is written under the manifest's lock, so a dead manifest
// writer's index temporaries go too.
func (s *Store) withLock(ctx context.Context, target string, fn func(lk *lock.Lock) error) error {
	return atomicfile.WithLock(ctx, s.Locks, target, func(lk *lock.Lock) error {
		if lk.TookOver() && target == s.ManifestPath() {
			atomicfile.RemoveTemps(s.IndexPath())
		}
		return fn(lk)
	})
}

// readIssue loads issue N (missing: an empty file).
func (s *Store) readIssue(issue int) (*IssueFile, error) {
	return readIssueAt(s.IssuePath(issue), issue)
}

// readIssueAt loads an issue-shaped file (issue or archive); missing is
// empty, observations without an issue number get the file's.
func readIssueAt(path string, issue int) (*IssueFile, error) {
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return &IssueFile{Version: 1, IssueNumber: issue}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return issueFromData(path, data, issue)
}

// issueFromData is readIssueAt on the file's bytes.
func issueFromData(path string, data []byte, issue int) (*IssueFile, error) {
	f, err := ParseIssueFile(path, data)
	if err != nil {
		return nil, err
	}
	if f.IssueNumber == 0 {
		f.IssueNumber = issue
	}
	for i := range f.Observations {
		if f.Observations[i].IssueNumber == 0 {
			f.Observations[i].IssueNumber = issue
		}
	}
	return f, nil
}

// updateIssue is step 1: fn changes the issue file under its lock and
// reports whether it changed; a corrupt file is never rewritten. It returns
// the pending marker left for step 2 ("" when nothing changed). The
// marker carries the audit line intent makes once fn has run (nil: none):
// a writer killed after its issue write but before its line leaves the
// line to the repair of its marker (repairPending), which appends it when
// the file shows the write landed and the trail lacks it. Without it the
// observation would stay in its file with no line (OBSERVATION_UNANCHORED,
// an error only a person could clear) although agentx wrote it.
func (s *Store) updateIssue(ctx context.Context, issue int, fn func(f *IssueFile) (bool, error), intent func() (audit.Entry, bool)) (marker string, err error) {
	path := s.IssuePath(issue)
	err = s.withLock(ctx, path, func(lk *lock.Lock) error {
		marker = ""
		f, err := s.readIssue(issue)
		if err != nil {
			return err
		}
		changed, err := fn(f)
		if err != nil || !changed {
			return err
		}
		f.UpdatedAt = clock.Format(s.now())
		data, err := f.Marshal()
		if err != nil {
			return fmt.Errorf("encode %s: %w", path, err)
		}
		var line *audit.Entry
		if intent != nil && s.Audit != nil {
			if e, ok := intent(); ok {
				line = &e
			}
		}
		if marker, err = s.leaveMarker(issue, line); err != nil {
			return err
		}
		return atomicfile.Write(path, data, s.writeOpts(lk))
	})
	if err != nil && marker != "" {
		_ = os.Remove(marker)
		marker = ""
	}
	return marker, err
}

// Store persists observations and returns those actually stored, with
// their IDs, timestamps, token counts and summaries filled in. An
// observation whose ID is already stored, or whose agent and content equal
// one already stored for its issue, is skipped (captures are retried and
// hooks can fire twice).
func (s *Store) Store(ctx context.Context, obs []Observation) ([]Observation, error) {
	stored, _, err := s.StoreReport(ctx, obs)
	return stored, err
}

// Duplicate is an observation Store skipped: Existing is the ID of the
// stored observation it repeats (same ID, or same agent and content in its
// issue).
type Duplicate struct {
	Agent    string
	Issue    int
	Existing string
}

// StoreReport is Store that also says which observations were skipped as
// duplicates, and of what: a skipped capture is reported, never silent.
// An empty batch stores nothing and touches no file.
func (s *Store) StoreReport(ctx context.Context, obs []Observation) (stored []Observation, dups []Duplicate, err error) {
	if len(obs) == 0 {
		return nil, nil, nil
	}
	order, groups, err := groupByIssue(obs)
	if err != nil {
		return nil, nil, err
	}
	if err := s.repairPending(ctx); err != nil {
		return nil, nil, err
	}
	hold := s.holdFresh()
	var wrote []int
	for _, issue := range order {
		var added []Observation
		var skipped []Duplicate // set by the last attempt: the update may be retried
		marker, err := s.updateIssue(ctx, issue, func(f *IssueFile) (bool, error) {
			added, skipped = appendNew(f, issue, groups[issue], s.now())
			return len(added) > 0, nil
		}, func() (audit.Entry, bool) { return s.storedEntry(issue, added) })
		dups = append(dups, skipped...)
		if err != nil {
			return stored, dups, err
		}
		// The trail's line before finish removes the pending marker: the
		// issue file holds them now (a failed manifest write is repaired
		// from it), and verify, reading beside writers, treats what a
		// marker covers as in progress but what neither a marker nor a
		// line covers as planted (issue 37).
		s.auditStored(ctx, issue, added)
		if err := s.finish(ctx, issue, marker); err != nil {
			return stored, dups, err
		}
		if marker != "" {
			wrote = append(wrote, issue)
		}
		stored = append(stored, added...)
		s.emitStored(ctx, issue, added)
	}
	s.keepFresh(hold, wrote)
	return stored, dups, nil
}

// groupByIssue validates obs and groups them by issue, issues in the order
// they first appear.
func groupByIssue(obs []Observation) (order []int, groups map[int][]Observation, err error) {
	groups = map[int][]Observation{}
	for _, o := range obs {
		o = o.sanitized()
		if err := o.validate(); err != nil {
			return nil, nil, err
		}
		if groups[o.IssueNumber] == nil {
			order = append(order, o.IssueNumber)
		}
		groups[o.IssueNumber] = append(groups[o.IssueNumber], o)
	}
	return order, groups, nil
}

// appendNew appends to f the observations of batch it does not hold yet,
// by ID or by agent and content, completed, and returns them.
func appendNew(f *IssueFile, issue int, batch []Observation, now time.Time) (added []Observation, dups []Duplicate) {
	ids := map[string]bool{}
	contents := map[string]string{}
	for _, o := range f.Observations {
		ids[o.ID] = true
		contents[o.Agent+"\x00"+o.Content] = o.ID
	}
	for _, o := range batch {
		if o.ID == "" {
			o.ID = NewID(o.Agent, issue, now)
		}
		key := o.Agent + "\x00" + o.Content
		if ids[o.ID] {
			dups = append(dups, Duplicate{Agent: o.Agent, Issue: issue, Existing: o.ID})
			continue
		}
		if id, ok := contents[key]; ok {
			dups = append(dups, Duplicate{Agent: o.Agent, Issue: issue, Existing: id})
			continue
		}
		ids[o.ID], contents[key] = true, o.ID
		o.fillDerived(now)
		o.Seal()
		f.Observations = append(f.Observations, o)
		added = append(added, o)
	}
	return added, dups
}

// fillDerived fills in what a caller may leave empty because it follows
// from the rest: the timestamp (now), the token estimate and the summary.
func (o *Observation) fillDerived(now time.Time) {
	if o.Timestamp == "" {
		o.Timestamp = clock.Format(now)
	}
	if o.Tokens == 0 {
		o.Tokens = EstimateTokens(o.Content)
	}
	if o.Summary == "" {
		o.Summary = Summarize(o.Content)
	}
}

func (s *Store) emitStored(ctx context.Context, issue int, added []Observation) {
	if s.Events == nil || len(added) == 0 {
		return
	}
	var agents []string
	byAgent := map[string][]Observation{}
	for _, o := range added {
		if byAgent[o.Agent] == nil {
			agents = append(agents, o.Agent)
		}
		byAgent[o.Agent] = append(byAgent[o.Agent], o)
	}
	for _, a := range agents {
		p := events.MemoryPayload{Agent: a, IssueNumber: issue, Timestamp: s.now().UnixMilli(), ObservationIDs: []string{}}
		for _, o := range byAgent[a] {
			p.Count++
			p.TotalTokens += o.Tokens
			p.ObservationIDs = append(p.ObservationIDs, o.ID)
		}
		if err := s.Events.Append(ctx, events.MemoryStored, p); err != nil {
			s.warn("memory-stored event not logged: %v", err)
		}
	}
}

// Remove deletes one observation; false when there was none.
func (s *Store) Remove(ctx context.Context, id string) (bool, error) {
	issue, err := s.issueOf(ctx, id)
	if errcode.Is(err, errcode.NotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	found := false
	var gone Observation
	hold := s.holdFresh()
	marker, err := s.updateIssue(ctx, issue, func(f *IssueFile) (bool, error) {
		kept := f.Observations[:0]
		found = false
		for _, o := range f.Observations {
			if o.ID == id {
				found, gone = true, o
				continue
			}
			kept = append(kept, o)
		}
		f.Observations = kept
		if found {
			// The removal travels with the file: a merge with a copy
			// that still holds the observation must not bring it back.
			return true, s.bury(f, s.tombstoneOf(gone, "removed", ""))
		}
		return false, nil
	}, func() (audit.Entry, bool) { return s.removedEntry(issue, gone), true })
	if err != nil {
		return false, err
	}
	// The line before finish removes the marker (as StoreReport's): verify
	// beside writers takes what a marker covers as in progress, and an
	// observation gone from its file with neither a marker nor a line as
	// deleted unseen.
	if found {
		s.auditRemoved(ctx, issue, gone)
	}
	if err := s.finish(ctx, issue, marker); err != nil {
		return found, err
	}
	s.keepFresh(hold, []int{issue})
	return found, nil
}

// Import adds many observations at once (the synthetic-workspace
// generator, migrations): each issue file is written once under its lock,
// then the manifest and index are rebuilt once, instead of one manifest
// write per batch. Observations must carry IDs; duplicates are skipped.
func (s *Store) Import(ctx context.Context, obs []Observation) (RebuildReport, error) {
	byIssue := map[int][]Observation{}
	var order []int
	for _, o := range obs {
		if err := o.validate(); err != nil {
			return RebuildReport{}, err
		}
		if o.ID == "" {
			return RebuildReport{}, errcode.New(errcode.InvalidInput, "import needs observation IDs")
		}
		if byIssue[o.IssueNumber] == nil {
			order = append(order, o.IssueNumber)
		}
		byIssue[o.IssueNumber] = append(byIssue[o.IssueNumber], o)
	}
	for _, n := range order {
		if err := s.mergeByID(ctx, s.IssuePath(n), n, byIssue[n]); err != nil {
			return RebuildReport{}, err
		}
		// On the trail like every other write (issue 32: verify anchors
		// observations on it).
		s.auditImported(ctx, n, byIssue[n])
	}
	return s.Rebuild(ctx)
}
