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

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/process"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
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
	// afterIssueWrite simulates a crash between steps 1 and 2 in tests.
	afterIssueWrite func() error
	// slow is the last view readers built from the files (openSlow); nil
	// (a Store made without New) disables it.
	slow *slowCache
	// batch, inside Batch, defers step 2 of every write to Batch's end.
	batch *batch
}

// New returns the store rooted at dir.
func New(dir string, locks *lock.Locker, clk clock.Clock) *Store {
	return &Store{Dir: dir, Locks: locks, Clock: clk, slow: &slowCache{}}
}

// markerStale is how old a pending marker must be before another process
// repairs for it: a live writer finishes step 2 within milliseconds, and
// repairing early would only duplicate its work.
const markerStale = 2 * time.Second

// ManifestPath is manifest.json.
func (s *Store) ManifestPath() string { return filepath.Join(s.Dir, "manifest.json") }

// IssuePath is issue-N.json.
func (s *Store) IssuePath(issue int) string {
	return filepath.Join(s.Dir, "issue-"+strconv.Itoa(issue)+".json")
}

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
// the pending marker left for step 2 ("" when nothing changed).
func (s *Store) updateIssue(ctx context.Context, issue int, fn func(f *IssueFile) (bool, error)) (marker string, err error) {
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
		if marker, err = s.leaveMarker(issue); err != nil {
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

func (s *Store) leaveMarker(issue int) (string, error) {
	dir := s.pendingDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "issue-"+strconv.Itoa(issue)+"-*")
	if err != nil {
		return "", fmt.Errorf("create pending marker: %w", err)
	}
	host, _ := os.Hostname()
	_, werr := fmt.Fprintf(f, "%s\n%d %s\n", clock.Format(s.now()), os.Getpid(), host)
	if err := errors.Join(werr, f.Close()); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write pending marker: %w", err)
	}
	return f.Name(), nil
}

// writerDead reports a marker whose writer ("pid host") was a process of
// this host that no longer exists: its write will never finish, so the
// repair need not wait for the marker to age. A reused pid only delays the
// repair to the age rule.
func writerDead(owner string) bool {
	pidText, host, ok := strings.Cut(owner, " ")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	if h, _ := os.Hostname(); h == "" || h != host {
		return false
	}
	return !process.Alive(pid)
}

// finish is steps 2 and 3.
func (s *Store) finish(ctx context.Context, issue int, marker string) error {
	if marker == "" {
		return nil
	}
	if s.batch != nil {
		s.batch.issues[issue] = true
		s.batch.markers = append(s.batch.markers, marker)
		return nil
	}
	if s.afterIssueWrite != nil {
		if err := s.afterIssueWrite(); err != nil {
			return err
		}
	}
	if err := s.syncIssues(ctx, []int{issue}); err != nil {
		return err
	}
	_ = os.Remove(marker)
	return nil
}

// repairPending finds markers left by writers that did not finish (a
// crash between the issue write and the manifest write) and redoes their
// step 2. It is cheap when there are none: one failed directory open.
func (s *Store) repairPending(ctx context.Context) error {
	issues, markers := s.stalePending()
	if len(issues) == 0 {
		return nil
	}
	s.warn("repairing the manifest for %d issue(s) left unfinished by an interrupted write: %v", len(issues), issues)
	// A marker is written under the issue lock, in the same hold as the
	// issue file; taking that lock once (and letting go before the
	// manifest's) guarantees a slow but live writer has finished its
	// issue write before we read the file.
	for _, n := range issues {
		if err := s.withLock(ctx, s.IssuePath(n), func(*lock.Lock) error { return nil }); err != nil {
			return err
		}
	}
	if err := s.syncIssues(ctx, issues); err != nil {
		return err
	}
	for _, m := range markers {
		_ = os.Remove(m)
	}
	return nil
}

// stalePending lists the markers of writers that will not finish step 2
// themselves (dead, or older than markerStale) and their issues.
func (s *Store) stalePending() (issues []int, markers []string) {
	ents, err := os.ReadDir(s.pendingDir())
	if err != nil || len(ents) == 0 {
		return nil, nil
	}
	now := s.now()
	seen := map[int]bool{}
	for _, e := range ents {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, "issue-")
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, "-")
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			continue
		}
		path := filepath.Join(s.pendingDir(), name)
		data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
		if err != nil {
			continue
		}
		stamp, owner, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
		t, perr := clock.Parse(stamp)
		if perr != nil {
			if info, err := e.Info(); err == nil {
				t = info.ModTime()
			}
		}
		if now.Sub(t) < markerStale && !writerDead(owner) {
			continue
		}
		markers = append(markers, path)
		if !seen[n] {
			seen[n] = true
			issues = append(issues, n)
		}
	}
	return issues, markers
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
	for _, issue := range order {
		var added []Observation
		var skipped []Duplicate // set by the last attempt: the update may be retried
		marker, err := s.updateIssue(ctx, issue, func(f *IssueFile) (bool, error) {
			added, skipped = appendNew(f, issue, groups[issue], s.now())
			return len(added) > 0, nil
		})
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
		stored = append(stored, added...)
		s.emitStored(ctx, issue, added)
	}
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

// GetByIssue returns the observations of an issue, oldest first.
func (s *Store) GetByIssue(_ context.Context, issue int) ([]Observation, error) {
	f, err := s.readIssue(issue)
	if err != nil {
		return nil, err
	}
	return f.Observations, nil
}

// GetByID returns one observation, or NOT_FOUND.
func (s *Store) GetByID(ctx context.Context, id string) (*Observation, error) {
	issue, err := s.issueOf(ctx, id)
	if err != nil {
		return nil, err
	}
	if o, err := s.findIn(issue, id); o != nil || err != nil {
		return o, err
	}
	// An ID of the reference shape whose observation was stored under
	// another issue (hand edits, other tools): ask the manifest.
	if other, err := s.lookupIssue(id); err == nil && other != issue {
		if o, err := s.findIn(other, id); o != nil || err != nil {
			return o, err
		}
	}
	return nil, notFound(id)
}

func (s *Store) findIn(issue int, id string) (*Observation, error) {
	f, err := s.readIssue(issue)
	if err != nil {
		return nil, err
	}
	for i := range f.Observations {
		if f.Observations[i].ID == id {
			return &f.Observations[i], nil
		}
	}
	return nil, nil
}

func notFound(id string) error {
	return errcode.New(errcode.NotFound, "no observation %q", id).WithHint("`agentx-hook memory search QUERY` lists observation IDs")
}

// issueOf finds the issue holding id: from the ID itself in the reference
// format, else through the manifest (other tools may use other IDs).
func (s *Store) issueOf(ctx context.Context, id string) (int, error) {
	if n, ok := IssueOfID(id); ok {
		if _, err := os.Stat(s.IssuePath(n)); err == nil {
			return n, nil
		}
	}
	if strings.TrimSpace(id) == "" {
		return 0, errcode.New(errcode.InvalidInput, "observation ID is empty")
	}
	return s.lookupIssue(id)
}

// lookupIssue finds id's issue through the manifest, then the issue files.
func (s *Store) lookupIssue(id string) (int, error) {
	data, err := atomicfile.ReadRegular(s.ManifestPath(), atomicfile.LimitOf(s.ManifestPath()))
	if err == nil {
		if m, err := ParseManifest(s.ManifestPath(), data); err == nil {
			for _, e := range m.Entries {
				if e.ID == id {
					return e.IssueNumber, nil
				}
			}
		}
	}
	// The manifest may be behind (or corrupt): look through the issue files.
	issues, err := s.Issues()
	if err != nil {
		return 0, err
	}
	for _, n := range issues {
		f, err := s.readIssue(n)
		if err != nil {
			continue
		}
		for _, o := range f.Observations {
			if o.ID == id {
				return n, nil
			}
		}
	}
	return 0, notFound(id)
}

// Issues lists the issue numbers that have an issue file, ascending.
func (s *Store) Issues() ([]int, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.Dir, err)
	}
	var out []int
	for _, e := range ents {
		if n, ok := issueFileNumber(e.Name()); ok && !e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// IssueFileNumber is the issue of an issue file's name (issue-N.json).
func IssueFileNumber(name string) (int, bool) { return issueFileNumber(name) }

func issueFileNumber(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "issue-")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, ".json")
	if !ok {
		return 0, false
	}
	// Issue 0 is the old chat integration's: read and kept like any other.
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || strconv.Itoa(n) != num {
		return 0, false
	}
	return n, true
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
	})
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
	return found, nil
}

// IncrementRecallCount adds one to the recall count of each observation
// (for relevance scoring). Unknown IDs are ignored. Only issue files
// change: the manifest carries no recall counts.
func (s *Store) IncrementRecallCount(ctx context.Context, ids []string) error {
	counts := make(map[string]int, len(ids))
	for _, id := range ids {
		counts[id] = 1
	}
	return s.AddRecallCounts(ctx, counts)
}

// AddRecallCounts adds counts[id] to each observation's recall count with
// one rewrite per issue file, however many recalls an observation
// collected since the last fold. Unknown ids are skipped.
func (s *Store) AddRecallCounts(ctx context.Context, counts map[string]int) error {
	byIssue := map[int]map[string]int{}
	var order []int
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if counts[id] <= 0 {
			continue
		}
		n, err := s.issueOf(ctx, id)
		if errcode.Is(err, errcode.NotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if byIssue[n] == nil {
			byIssue[n] = map[string]int{}
			order = append(order, n)
		}
		byIssue[n][id] = counts[id]
	}
	var restamp []restamped
	for _, n := range order {
		r, err := s.addRecallCounts(ctx, n, byIssue[n])
		if err != nil {
			s.restamp(ctx, restamp) // what was rewritten stays usable
			return err
		}
		if r != nil {
			restamp = append(restamp, *r)
		}
	}
	s.restamp(ctx, restamp)
	return nil
}

// addRecallCounts adds add[id] to the recall counts of issue n's
// observations, under the issue file's lock. It returns the file's stamps
// before and after when it rewrote it (nil when nothing changed or a stamp
// could not be read).
func (s *Store) addRecallCounts(ctx context.Context, n int, add map[string]int) (*restamped, error) {
	path := s.IssuePath(n)
	var out *restamped
	err := s.withLock(ctx, path, func(lk *lock.Lock) error {
		before, berr := s.stampOf(n)
		f, err := s.readIssue(n)
		if err != nil {
			return err
		}
		changed := false
		now := s.now()
		for i := range f.Observations {
			if k := add[f.Observations[i].ID]; k > 0 {
				f.Observations[i].RecallCount += k
				f.Observations[i].SetLastRecalled(now)
				changed = true
			}
		}
		if !changed {
			return nil
		}
		f.UpdatedAt = clock.Format(s.now())
		data, err := f.Marshal()
		if err != nil {
			return err
		}
		if err := atomicfile.Write(path, data, s.writeOpts(lk)); err != nil {
			return err
		}
		if after, aerr := s.stampOf(n); berr == nil && aerr == nil {
			out = &restamped{issue: n, before: before, after: after}
		}
		return nil
	})
	return out, err
}

// Compact is the hook compaction uses: plan receives the issue's
// observations and returns those to keep (new ones such as a
// compaction-summary included, IDs filled in like Store) and the originals
// to archive. The archived originals are added to
// archive/issue-N-archived.json before the issue file is rewritten, so a
// crash in between leaves a copy in both places and never loses one.
func (s *Store) Compact(ctx context.Context, issue int, plan func(obs []Observation) (keep, archive []Observation, err error)) (kept []Observation, archived int, err error) {
	cur, err := s.readIssue(issue)
	if err != nil {
		return nil, 0, err
	}
	keep, arch, err := plan(append([]Observation(nil), cur.Observations...))
	if err != nil {
		return nil, 0, err
	}
	if err := s.archive(ctx, issue, arch); err != nil {
		return nil, 0, err
	}
	c := compaction{issue: issue, planned: idSet(cur.Observations), keep: keep, gone: idSet(arch)}
	stale := false
	marker, err := s.updateIssue(ctx, issue, func(f *IssueFile) (bool, error) {
		var err error
		kept, stale, err = c.apply(f.Observations, s.now())
		if stale || err != nil {
			return false, err
		}
		f.Observations = kept
		var dead []tombstone.Tombstone
		for _, o := range arch {
			dead = append(dead, s.tombstoneOf(o, "compacted", summaryOf(kept, o.ID)))
		}
		return true, s.bury(f, dead...)
	})
	if err != nil {
		return nil, 0, err
	}
	if stale {
		return kept, 0, nil
	}
	// The line before the marker goes, as Remove's.
	s.auditCompacted(ctx, issue, arch, kept)
	if err := s.finish(ctx, issue, marker); err != nil {
		return kept, len(arch), err
	}
	return kept, len(arch), nil
}

// compaction is a plan made without the lock, applied under it.
type compaction struct {
	issue   int
	planned map[string]bool // the observations the plan saw
	keep    []Observation   // what the plan keeps (new ones without IDs)
	gone    map[string]bool // what the plan archived
}

// apply returns the issue's observations after the plan: the kept ones as
// they are now (recall counts added meanwhile stay), new ones completed,
// then those stored by someone else since the plan ran. stale is true, and
// cur is returned unchanged, when an observation the plan saw is gone
// (removed meanwhile): the plan would bring it back or keep its text in a
// summary, so the issue is left as it is and the next compaction plans
// again.
func (c compaction) apply(cur []Observation, now time.Time) (out []Observation, stale bool, err error) {
	fresh := make(map[string]*Observation, len(cur))
	for i := range cur {
		fresh[cur[i].ID] = &cur[i]
	}
	for id := range c.planned {
		if fresh[id] == nil {
			return cur, true, nil
		}
	}
	out = make([]Observation, 0, len(c.keep))
	placed := map[string]bool{}
	for _, o := range c.keep {
		if o.ID != "" && c.planned[o.ID] {
			o = *fresh[o.ID]
		}
		fresh := o.ID == "" || !c.planned[o.ID]
		if o.ID == "" {
			o.ID = NewID(o.Agent, c.issue, now)
		}
		o.IssueNumber = c.issue
		o.fillDerived(now)
		if fresh {
			o.Seal() // a new observation (the summary); kept ones keep theirs
		}
		if err := o.validateKept(); err != nil {
			return nil, false, err
		}
		out = append(out, o)
		placed[o.ID] = true
	}
	for _, o := range cur {
		if !c.gone[o.ID] && !placed[o.ID] {
			out = append(out, o)
		}
	}
	return out, false, nil
}

func idSet(obs []Observation) map[string]bool {
	set := make(map[string]bool, len(obs))
	for _, o := range obs {
		set[o.ID] = true
	}
	return set
}

// archive adds originals to the issue's archive file (by ID, once).
func (s *Store) archive(ctx context.Context, issue int, obs []Observation) error {
	if len(obs) == 0 {
		return nil
	}
	return s.mergeByID(ctx, s.ArchivePath(issue), issue, obs)
}

// mergeByID appends to the issue-shaped file at path, under its lock, the
// observations whose IDs it does not hold yet.
func (s *Store) mergeByID(ctx context.Context, path string, issue int, obs []Observation) error {
	return s.withLock(ctx, path, func(lk *lock.Lock) error {
		f, err := readIssueAt(path, issue)
		if err != nil {
			return err
		}
		have := map[string]bool{}
		for _, o := range f.Observations {
			have[o.ID] = true
		}
		for _, o := range obs {
			if !have[o.ID] {
				have[o.ID] = true
				o.sealIfMissing()
				f.Observations = append(f.Observations, o)
			}
		}
		f.UpdatedAt = clock.Format(s.now())
		data, err := f.Marshal()
		if err != nil {
			return err
		}
		return atomicfile.Write(path, data, s.writeOpts(lk))
	})
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
