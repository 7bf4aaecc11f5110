// Package verify owns the integrity check of a workspace's `.agentx/`: it
// reads every file agentx owns and reports, file and record by record,
// what is wrong (Problem: a stable code, the path, the record or
// observation id, the byte offset), and performs the repairs that follow
// from the files without guessing (Repair). It never changes a ledger
// record or an observation: those are reported for a person. The codes
// are listed in docs/verify.md.
package verify

import (
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/memanchor"
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
	// duringTrail, when set, runs once as the trail's first line is
	// read (tests: a writer rotating the trail meanwhile).
	duringTrail func()
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
	// observations (nil: none or unread), anchors their anchors (the
	// view's Keep). The lines themselves are not kept: at a million
	// observations they were hundreds of MB.
	view    *memanchor.View
	anchors *anchorSet
	// hits are what the anchoring rule found against the observations
	// memoryFiles read, as it read them (anchored.go).
	hits []anchorHit
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
	return &checker{ws: c.ws, opt: c.opt, rep: &Report{}, host: c.host, fsys: c.fsys, view: c.view, anchors: c.anchors}
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
