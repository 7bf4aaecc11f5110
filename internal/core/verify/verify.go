// Package verify owns the integrity check of a workspace's `.agentx/`: it
// reads every file agentx owns and reports, file and record by record,
// what is wrong (Problem: a stable code, the path, the record or
// observation id, the byte offset), and performs the repairs that follow
// from the files without guessing (Repair). It never changes a ledger
// record or an observation: those are reported for a person. The codes
// are listed in docs/verify.md.
package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memanchor"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/workpool"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Severity says what a problem means for the exit status.
type Severity string

const (
	// Error: something is wrong; verify exits 1.
	Error Severity = "error"
	// Warning: a person should fix it, nothing stops working meanwhile
	// (a configuration key the toolkit does not read); not an error.
	Warning Severity = "warning"
	// Stale: a derived file lags its sources; it is rebuilt by the next
	// writer (or --repair) and never an error.
	Stale Severity = "stale"
	// Info: worth knowing, not wrong (files from before hashes, a torn
	// last log line).
	Info Severity = "info"
)

// Problem is one finding.
type Problem struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	// Path is relative to the workspace root, slash-separated.
	Path string `json:"path"`
	// ID is the record, entry or observation concerned, when one is.
	ID string `json:"id,omitempty"`
	// Offset is the byte offset in Path where the problem is (-1: the
	// whole file).
	Offset int64 `json:"offset"`
	// Line is the 1-based line of a JSON-lines file.
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	// Repair names what --repair does about it ("" for nothing: a person
	// decides).
	Repair string `json:"repair,omitempty"`
}

// Counts are what was checked.
type Counts struct {
	Ledgers      int `json:"ledgers"`
	Records      int `json:"records"`
	Entries      int `json:"entries"`
	IssueFiles   int `json:"memoryIssueFiles"`
	Observations int `json:"observations"`
	Archived     int `json:"archived"`
	AuditLines   int `json:"auditLines"`
	// Trails counts the audit trails of a tree check (RunFS).
	Trails int `json:"auditTrails,omitempty"`
	// Artifacts counts the entries of the artifact ledgers.
	Artifacts int `json:"artifacts,omitempty"`
	Unhashed  int `json:"unhashed"`
}

// Report is the outcome of Run.
type Report struct {
	Counts   Counts    `json:"counts"`
	Problems []Problem `json:"problems"`
}

// Errors counts the problems of severity Error.
func (r *Report) Errors() int {
	n := 0
	for _, p := range r.Problems {
		if p.Severity == Error {
			n++
		}
	}
	return n
}

// Options tune Run.
type Options struct {
	// Now is the time locks and temporaries are aged against (default
	// time.Now).
	Now func() time.Time
	// StaleAfter is the lock stale threshold (default lock.DefaultStaleAfter).
	StaleAfter time.Duration
	// Host is this machine's name (default os.Hostname): a lock's pid is
	// only judged on the host that wrote it.
	Host string
	// AuditAnchors are earlier copies of the audit trail's newest file
	// (the last checkpoint's): lines they hold that the trail lacks are a
	// cut (audit.CodeCut).
	AuditAnchors []audit.Anchor
	// Baseline, when set, is the last checkpoint's state: ledgers,
	// records and entries it holds must still be there (issue 26).
	Baseline *Baseline
	// GitDirs are the repository's git directories (its own and the
	// common one), where killed writers' temporaries are looked for; none
	// outside git.
	GitDirs []string
	// beforeRecheck, when set, runs instead of the pause before the
	// memory files are read again (tests).
	beforeRecheck func()
	// Extra are problems found by the caller (checkpoints agentx did not
	// make), reported with the others.
	Extra []Problem
}

type checker struct {
	ws   workspace.Workspace
	opt  Options
	rep  *Report
	host string
	// seen are the record ids of the ledgers a sub-checker read, and the
	// ids tombstones name (removed on purpose); records is their union
	// over all ledgers (nil before the ledgers are read).
	seen    []string
	records map[string]bool
	// live and archived are the observations memoryFiles read (by id),
	// for the audit trail's anchoring check (anchored.go).
	live, archived *obsSet
	// view is what the trail's lines stateFiles read say of the
	// observations (nil: none or unread). The lines themselves are not
	// kept: at a million observations they were hundreds of MB.
	view *memanchor.View
	// fsys, when set, is what is checked instead of the disk: a tree laid
	// out like `.agentx/` (RunFS); ws is then rooted at "" and paths are
	// mapped onto fsys by fsName.
	fsys fs.FS
}

// Run checks the workspace.
func Run(ws workspace.Workspace, opt Options) (*Report, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.StaleAfter <= 0 {
		opt.StaleAfter = lock.DefaultStaleAfter
	}
	c := &checker{ws: ws, opt: opt, rep: &Report{Problems: []Problem{}}, host: opt.Host}
	if c.host == "" {
		c.host, _ = os.Hostname()
	}
	if err := ws.CheckContained(); err != nil {
		c.add(Problem{Code: CodeWorkspaceUnsafe, Severity: Error, Path: workspace.Dir, Offset: -1, Message: err.Error()})
		return c.rep, nil
	}
	if fi, err := os.Lstat(ws.AgentxDir()); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("no %s directory under %s (run `agentx-hook init`)", workspace.Dir, ws.Root)
	}
	c.configuration()
	c.ledgers()
	c.artifacts()
	c.stateFiles()
	c.memory()
	c.gitTemps()
	c.rep.Problems = append(c.rep.Problems, opt.Extra...)
	c.sort()
	return c.rep, nil
}

func (c *checker) sort() {
	sort.SliceStable(c.rep.Problems, func(i, j int) bool {
		a, b := c.rep.Problems[i], c.rep.Problems[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		return a.Line < b.Line
	})
}

func (c *checker) add(p Problem) { c.rep.Problems = append(c.rep.Problems, p) }

// sub is a checker for one file checked in parallel with others; merge
// adds what it found.
func (c *checker) sub() *checker {
	return &checker{ws: c.ws, opt: c.opt, rep: &Report{}, host: c.host, fsys: c.fsys}
}

func (c *checker) merge(sub *checker) {
	if sub == nil {
		return
	}
	c.rep.Problems = append(c.rep.Problems, sub.rep.Problems...)
	s, d := &sub.rep.Counts, &c.rep.Counts
	d.Ledgers += s.Ledgers
	d.Records += s.Records
	d.Entries += s.Entries
	d.IssueFiles += s.IssueFiles
	d.Observations += s.Observations
	d.Archived += s.Archived
	d.Unhashed += s.Unhashed
}

// fileJob is a state file to check: its path and the issue its name says.
type fileJob struct {
	path  string
	issue int
}

// files lists the state files of dir whose names match (giving their
// issue), reporting the transients (locks, temporaries) found beside them.
func (c *checker) files(dir string, match func(name string) (int, bool)) []fileJob {
	var jobs []fileJob
	for _, e := range c.listDir(dir) {
		name := e.Name()
		if c.transient(dir, name) {
			continue
		}
		if issue, ok := match(name); ok {
			jobs = append(jobs, fileJob{filepath.Join(dir, name), issue})
		}
	}
	return jobs
}

// parallel runs work(0..n-1) on a few goroutines: checking a file is
// reading and hashing, which two cores do twice as fast.
func parallel(n int, work func(i int)) {
	_ = workpool.Run(context.Background(), n, 4, work)
}

// rel is p relative to the root, slash-separated.
func (c *checker) rel(p string) string {
	if c.fsys != nil {
		return c.fsName(p)
	}
	r, err := filepath.Rel(c.ws.Root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// read reads a state file found in a directory listing, reporting (and
// returning ok=false for) a symlink, anything but a regular file, and a
// file that cannot be read. A symlink is never followed: it could lead
// anywhere outside the workspace.
func (c *checker) read(path string) ([]byte, bool) {
	if c.fsys != nil {
		return c.readFS(path)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: c.rel(path), Offset: -1, Message: err.Error()})
		}
		return nil, false
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		c.add(Problem{Code: CodeSymlink, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("is a symlink (to %s); agentx writes regular files and does not follow it", target)})
		return nil, false
	case !fi.Mode().IsRegular():
		c.add(Problem{Code: CodeNotRegular, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("is not a regular file (%s)", atomicfile.Kind(fi.Mode()))})
		return nil, false
	}
	data, err := atomicfile.ReadRegular(path, atomicfile.LimitOf(path))
	if err != nil {
		code := CodeUnreadable
		if errors.Is(err, atomicfile.ErrNotRegular) {
			code = CodeNotRegular
		}
		c.add(Problem{Code: code, Severity: Error, Path: c.rel(path), Offset: -1, Message: err.Error()})
		return nil, false
	}
	return data, true
}

// listDir lists a directory that may be missing; a symlinked directory
// was already refused by CheckContained when it leads outside.
func (c *checker) listDir(dir string) []fs.DirEntry {
	if c.fsys != nil {
		entries, err := fs.ReadDir(c.fsys, c.fsName(dir))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: c.rel(dir), Offset: -1, Message: err.Error()})
		}
		return entries
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 && !c.ws.Contains(dir) {
		// CheckContained covers the main directories; this covers the
		// others (the archive) the same way: a symlink inside the root is
		// followed, one leading out is not.
		target, _ := os.Readlink(dir)
		c.add(Problem{Code: CodeSymlink, Severity: Error, Path: c.rel(dir), Offset: -1,
			Message: fmt.Sprintf("is a symlink to %s, outside the workspace; not followed", target)})
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: c.rel(dir), Offset: -1, Message: err.Error()})
	}
	return entries
}

// guardFile is the lock package's directory guard: a flock(2) the kernel
// releases when its holder dies, so it is never stale whatever it holds.
const guardFile = ".agentx-guard.lock"

// transient checks a name in a state directory for what a crashed writer
// leaves (a lock, a temporary); it reports true when name was one.
func (c *checker) transient(dir, name string) bool {
	if c.fsys != nil {
		return false // a tree holds no locks nor temporaries to age
	}
	path := filepath.Join(dir, name)
	switch {
	case name == guardFile:
		return true
	case strings.HasSuffix(name, ".lock"):
		c.lockFile(path)
		return true
	case strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-"):
		c.tempFile(path)
		return true
	case strings.Contains(name, ".lock."):
		return true // a lock's staging file or guard: the lock package ages them out
	}
	return false
}

// lockFile reports a lock left by a dead process on this host (repaired by
// taking it over, which the lock package does safely) or older than the
// stale threshold (information: the next writer takes it over).
func (c *checker) lockFile(path string) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	data, err := atomicfile.ReadRegular(path, 4096)
	if err != nil {
		return
	}
	content, at, ok := lock.ParseContent(data)
	if !ok {
		at = fi.ModTime()
	}
	age := c.opt.Now().Sub(at)
	switch {
	case ok && content.Host != "" && content.Host == c.host && content.PID > 0 && !alive(content.PID):
		c.add(Problem{Code: CodeDeadLock, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("lock of process %d (%s), which is no longer running", content.PID, content.Agent),
			Repair:  "take the lock over and release it"})
	case age > c.opt.StaleAfter:
		c.add(Problem{Code: CodeStaleLock, Severity: Info, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("lock %s old (held by pid %d on %q); the next writer takes it over", age.Round(time.Second), content.PID, content.Host)})
	}
}

// tempFile reports a temporary of an atomic write left by a writer that is
// gone: at once when its name carries the writer's process id and that
// process no longer runs (agentx names its temporaries so, issue 32),
// else once it is older than the lock threshold (its writer held the
// file's lock, which would have been taken over by now).
func (c *checker) tempFile(path string) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	if pid, ok := atomicfile.TempPID(filepath.Base(path)); ok && !alive(pid) {
		c.add(Problem{Code: CodeDeadTemp, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("temporary of an atomic write left by process %d, which is no longer running", pid),
			Repair:  "remove it"})
		return
	}
	if age := c.opt.Now().Sub(fi.ModTime()); age > c.opt.StaleAfter {
		c.add(Problem{Code: CodeDeadTemp, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("temporary of an atomic write left %s ago by a writer that is gone", age.Round(time.Second)),
			Repair:  "remove it"})
	}
}

// stateFiles checks agent-status.json, events.jsonl and the audit trail.
func (c *checker) stateFiles() {
	dir := c.ws.StateDir()
	for _, e := range c.listDir(dir) {
		c.transient(dir, e.Name())
	}
	if data, ok := c.read(c.ws.AgentStatusFile()); ok {
		if _, err := agentstatus.Decode(c.ws.AgentStatusFile(), data); err != nil {
			c.add(Problem{Code: CodeStatusCorrupt, Severity: Error, Path: c.rel(c.ws.AgentStatusFile()), Offset: jsonfile.CorruptOffset(data, err), Message: err.Error()})
		}
	}
	if data, ok := c.read(c.ws.EventsFile()); ok {
		c.jsonLines(c.ws.EventsFile(), data, CodeEventsCorrupt, CodeEventsTorn)
	}
	// One reading of the trail serves the requests' check and the
	// observations' anchoring (anchored.go).
	// The lines are folded into the anchors as they are read, never held
	// all at once (issue 35); only the requests' and restores' are kept.
	view := memanchor.NewView()
	var made []audit.Entry
	var seq int64
	findings, lines, err := audit.CheckOpsEach(dir, append([]string{"clarify.request", "clarify.ask", "checkpoint.restore"}, anchorOpNames()...), func(e *audit.Entry) {
		view.Fold(seq, e, nil)
		seq++
		switch e.Op {
		case "clarify.request", "clarify.ask", "checkpoint.restore":
			made = append(made, *e)
		}
	}, c.opt.AuditAnchors...)
	c.rep.Counts.AuditLines = lines
	c.addTrail(dir, findings, err, c.rel)
	c.requestsGone(made)
	if err == nil && seq > 0 {
		c.view = view
	}
}

// addTrail reports what checking the audit trail in dir found (err: the
// trail could not be listed), paths named by rel.
func (c *checker) addTrail(dir string, findings []audit.Finding, err error, rel func(string) string) {
	if err != nil {
		c.add(Problem{Code: audit.CodeUnreadable, Severity: Error, Path: rel(dir), Offset: -1, Message: err.Error()})
	}
	for _, f := range findings {
		sev := Error
		if f.Info {
			sev = Info
		}
		c.add(Problem{Code: f.Code, Severity: sev, Path: rel(f.Path), Offset: f.Offset, Line: f.Line, Message: f.Msg})
	}
}

// jsonLines checks a JSON-lines log: every line a JSON value; a last line
// without its newline that does not parse is a torn append (information).
func (c *checker) jsonLines(path string, data []byte, corrupt, torn string) {
	atomicfile.EachLine(data, func(line []byte, off int64, no int, terminated bool) {
		switch {
		case len(bytes.TrimSpace(line)) == 0 || json.Valid(line):
		case !terminated:
			c.add(Problem{Code: torn, Severity: Info, Path: c.rel(path), Offset: off, Line: no,
				Message: "the last line is cut short (an append interrupted); the next append starts a new line"})
		default:
			c.add(Problem{Code: corrupt, Severity: Error, Path: c.rel(path), Offset: off, Line: no, Message: fmt.Sprintf("line %d is not JSON", no)})
		}
	})
}

// idOffset finds where the object with id starts in data (its "id"
// member), or -1.
func idOffset(data []byte, id string, from int64) int64 {
	if from < 0 || from > int64(len(data)) {
		from = 0
	}
	q := jsonfile.AppendString(nil, id)
	for _, pat := range [][]byte{append([]byte(`"id": `), q...), append([]byte(`"id":`), q...), q} {
		if i := bytes.Index(data[from:], pat); i >= 0 {
			return from + int64(i)
		}
	}
	return -1
}

// memory checks the store: issue files, manifest, archive, search index.
func (c *checker) memory() {
	store := memory.New(c.ws.MemoryDir(), nil, nil)
	sub := c.sub()
	// A writer stores an observation in its issue file, then lists it in
	// the manifest, with a pending marker in memory/pending/ from before
	// the first write to after the second: read between the two, the
	// manifest lags. So manifest problems are read again, until a reading
	// with no write in progress agrees with the one before; those that
	// remain while writes go on are a lag (stale), not an error
	// (issue 26: verify beside writers). A write that begins and ends
	// between the two looks for a marker leaves none to see (on a fast
	// disk a whole write fits inside one reading), but it replaced the
	// manifest: a manifest that changed under a reading makes it busy too.
	m0 := c.manifestInfo(store)
	busy := c.writing()
	sub.memoryFiles(store)
	busy = busy || c.writing() || replaced(m0, c.manifestInfo(store))
	for try := 1; c.fsys == nil && try < maxReads && manifestTrouble(sub.rep); try++ {
		if c.opt.beforeRecheck != nil {
			c.opt.beforeRecheck()
		} else {
			time.Sleep(recheckDelay)
		}
		again := c.sub()
		m0 := c.manifestInfo(store)
		before := c.writing()
		again.memoryFiles(memory.New(c.ws.MemoryDir(), nil, nil))
		same := sameProblems(sub.rep, again.rep)
		sub, busy = again, before || c.writing() || replaced(m0, c.manifestInfo(store))
		if same && !busy {
			break
		}
	}
	if busy {
		lagging(sub.rep)
	}
	if c.fsys == nil {
		c.anchored(sub.live, sub.archived, busy)
	}
	c.merge(sub)
	if why := store.IndexStale(); why != "" && c.hasMemory(store) {
		c.add(Problem{Code: CodeSearchIndexStale, Severity: Stale, Path: c.rel(store.IndexPath()), Offset: -1,
			Message: "the search index is stale: " + why + " (searches read the issue files until the next write)",
			Repair:  "rebuild the manifest and the index"})
	}
	if why := monitor.IndexStale(c.ws.ClarificationsDir()); why != "" {
		c.add(Problem{Code: CodeMonitorIndexStale, Severity: Stale, Path: c.rel(filepath.Join(c.ws.ClarificationsDir(), monitor.IndexName)), Offset: -1,
			Message: "the monitor's index is stale: " + why + " (the next scan reads what changed)",
			Repair:  "delete it"})
	}
}

// hasMemory reports whether the store holds anything a search index would
// describe (a manifest, an index, an issue file): an empty store needs none.
func (c *checker) hasMemory(store *memory.Store) bool {
	if c.exists(store.ManifestPath()) || c.exists(store.IndexPath()) {
		return true
	}
	issues, err := store.Issues()
	return err == nil && len(issues) > 0
}

// manifestInfo is the manifest as it is now (nil when it cannot be read,
// or when checking a tree, which nothing writes to).
func (c *checker) manifestInfo(store *memory.Store) os.FileInfo {
	if c.fsys != nil {
		return nil
	}
	fi, err := os.Stat(store.ManifestPath())
	if err != nil {
		return nil
	}
	return fi
}

// replaced reports whether a file was written between two looks: every
// write replaces it (a rename: another file), or at least its size or time.
func replaced(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return (a == nil) != (b == nil)
	}
	return !os.SameFile(a, b) || a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime())
}

// recheckDelay is the pause before the memory files are read again: a
// writer's issue file and manifest writes are milliseconds apart.
const recheckDelay = 100 * time.Millisecond

// writing reports whether a memory write is in progress: a pending
// marker younger than the stale threshold (an older one is a writer that
// died, which the next access repairs).
func (c *checker) writing() bool {
	if c.fsys != nil {
		return false
	}
	ents, err := os.ReadDir(filepath.Join(c.ws.MemoryDir(), "pending"))
	if err != nil {
		return false
	}
	now := c.opt.Now()
	for _, e := range ents {
		// Markers are issue-N-*; the search's freshness record
		// (search.fresh) lives beside them and is no write.
		if !strings.HasPrefix(e.Name(), "issue-") {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) < c.opt.StaleAfter {
			return true
		}
	}
	return false
}

// lagging turns the manifest errors of a reading made while writes were
// in progress into stale findings: the writers bring it in line.
func lagging(rep *Report) {
	for i := range rep.Problems {
		p := &rep.Problems[i]
		if p.Severity == Error && strings.HasPrefix(p.Code, "MANIFEST_") {
			p.Severity = Stale
			p.Message += " (read while a memory write was in progress, which brings the manifest in line: run verify again when the writers are done)"
		}
	}
}

// maxReads bounds the readings of the memory files.
const maxReads = 4

// sameProblems reports whether two readings found the same problems.
func sameProblems(a, b *Report) bool {
	if len(a.Problems) != len(b.Problems) {
		return false
	}
	for i := range a.Problems {
		p, q := a.Problems[i], b.Problems[i]
		if p.Code != q.Code || p.Path != q.Path || p.ID != q.ID {
			return false
		}
	}
	return true
}

// manifestTrouble reports whether rep holds a manifest error, which a
// write in progress can cause.
func manifestTrouble(rep *Report) bool {
	for _, p := range rep.Problems {
		if p.Severity == Error && strings.HasPrefix(p.Code, "MANIFEST_") {
			return true
		}
	}
	return false
}

func (c *checker) exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
