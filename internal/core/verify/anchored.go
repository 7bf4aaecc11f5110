package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// Observations anchored on the audit trail (issue 32). Every write of the
// store that lands is one trail line naming each observation it stored
// with its content hash (memory.capture, memory.add, memory.compact's
// summaries, memory.restore, a sync's sync.merge) or removed
// (memory.remove, memory.archive, memory.compact's originals). The trail
// is hash-chained and its head is recorded in every checkpoint commit, so
// an edit of the files that re-hashes what it changes is still caught:
//
//   - OBSERVATION_UNANCHORED: a hashed observation no trail line stored (a
//     planted note with a valid hash);
//   - OBSERVATION_REHASHED: one whose hash is not the one its last trail
//     line recorded (a note replaced under a fresh valid hash, then
//     `memory rebuild`);
//   - OBSERVATION_DELETED: one the trail stored and never removed that no
//     issue or archive file holds (a deleted issue file, then a rebuild).
//
// Observations without a hash (the old tools, which share the directory
// and write no trail) are not judged; nor is anything when the trail is
// empty (a workspace from before it). A line that listed only MaxIDs of
// its ids (a large batch) and a checkpoint restore (which revives what it
// brings back without a line per observation) make what they may cover
// information, not an error.
const (
	CodeObsUnanchored = "OBSERVATION_UNANCHORED"
	CodeObsRehashed   = "OBSERVATION_REHASHED"
	CodeObsDeleted    = "OBSERVATION_DELETED"
)

// anchorOps are the trail's operations that store or remove observations.
var anchorOps = map[string]bool{
	memory.OpCapture: true, memory.OpAdd: true, memory.OpCompact: true, memory.OpRemove: true,
	memory.OpArchive: true, memory.OpRestore: true, memory.OpImport: true, "sync.merge": true,
}

// anchor is what the trail last said of one observation.
type anchor struct {
	hash  string // "" when its last line removed it
	line  int    // that line's position in the trail
	issue int    // the line's issue
}

// trailAnchors reads the trail in dir: each observation's last word, the
// position of the last checkpoint.restore, whether some line was cut to
// MaxIDs, the time of the last line and how many lines there are.
type trailView struct {
	obs         map[string]anchor
	lastRestore int
	cut         bool
	lines       int
	last        time.Time
	// first is the time of the trail's first line: a note older than it
	// predates the trail (a workspace upgraded), and is not judged.
	first string
}

func readAnchors(dir string) (*trailView, error) {
	entries, err := audit.History(dir, audit.Filter{})
	if err != nil {
		return nil, err
	}
	return anchorsOf(entries), nil
}

// anchorOpNames are the operations the anchoring reads, for CheckOps.
func anchorOpNames() []string {
	out := make([]string, 0, len(anchorOps))
	for op := range anchorOps {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

// anchorsOf is the trailView of entries (any order: sorted by time here,
// lines of one time in their order, as History gives them).
func anchorsOf(entries []audit.Entry) *trailView {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Time < entries[j].Time })
	v := &trailView{obs: map[string]anchor{}, lastRestore: -1, lines: len(entries)}
	for i, e := range entries {
		if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil {
			v.last = t
		}
		if v.first == "" || (e.Time != "" && e.Time < v.first) {
			v.first = e.Time
		}
		if e.Op == "checkpoint.restore" {
			v.lastRestore = i
			continue
		}
		if !anchorOps[e.Op] {
			continue
		}
		if e.MoreIDs > 0 {
			v.cut = true
		}
		for id := range e.Before {
			if _, after := e.After[id]; !after {
				if n, ok := obsIssue(id, e); ok {
					v.obs[id] = anchor{line: i, issue: n}
				}
			}
		}
		for id, h := range e.After {
			if n, ok := obsIssue(id, e); ok {
				v.obs[id] = anchor{hash: h, line: i, issue: n}
			}
		}
	}
	return v
}

// obsIssue is the issue of observation id named by e; ok is false for
// what is no observation (a sync line also names ledger records and
// files).
func obsIssue(id string, e audit.Entry) (int, bool) {
	if n, ok := memory.IssueOfID(id); ok {
		return n, true
	}
	if e.Op == "sync.merge" {
		return 0, false
	}
	return e.Issue, true
}

// anchored checks live (and archived) observations against the trail.
// busy says writers were at work while the files were read: what a writer
// has stored but not yet written its line for is then a lag, not a
// finding.
func (c *checker) anchored(live, archived map[string]seenObs, busy bool) {
	dir := c.ws.StateDir()
	if len(c.trail) == 0 {
		return // no trail read (or none written): nothing to anchor on
	}
	v := anchorsOf(append([]audit.Entry(nil), c.trail...))
	for _, p := range c.opt.Extra {
		if p.Code == CodeRestoreLost {
			// A restore cut off before its line accounts for anything.
			v.lastRestore = v.lines
		}
	}
	findings := c.anchorFindings(live, archived, v)
	if len(findings) > 0 {
		// A writer appends its line just after its write: read the trail
		// again once before judging.
		if c.opt.beforeRecheck != nil {
			c.opt.beforeRecheck()
		} else {
			time.Sleep(recheckDelay)
		}
		if again, err := readAnchors(dir); err == nil {
			again.lastRestore = max(again.lastRestore, v.lastRestore)
			// The trail read again is newer than the files: a note stored
			// since shows in it but not in them. A deletion is one the
			// first reading, older than the files, saw too.
			deleted := map[string]bool{}
			for _, p := range findings {
				if p.Code == CodeObsDeleted {
					deleted[p.ID] = true
				}
			}
			findings = slices.DeleteFunc(c.anchorFindings(live, archived, again), func(p Problem) bool {
				return p.Code == CodeObsDeleted && !deleted[p.ID]
			})
		}
	}
	damaged := c.trailDamaged()
	for _, p := range findings {
		if p.Code == CodeObsDeleted && c.corruptFile(p.ID, v) {
			continue // its file does not parse: MEMORY_FILE_CORRUPT says so
		}
		if damaged && p.Severity == Error {
			p.Severity = Info
			p.Message += " (the audit trail itself is damaged, see AUDIT_*: it is no anchor now)"
		}
		if busy && p.Severity == Error {
			p.Severity = Stale
			p.Message += " (writers were at work: it may be one in progress)"
		}
		c.add(p)
	}
}

func (c *checker) anchorFindings(live, archived map[string]seenObs, v *trailView) []Problem {
	var out []Problem
	soft := func(p Problem, a anchor, known bool) Problem {
		// A restore brings back what it kept without a line each, and a
		// cut line named only some of its ids.
		if (known && v.lastRestore > a.line) || (!known && (v.lastRestore >= 0 || v.cut)) {
			p.Severity = Info
			p.Message += "; a checkpoint restore or a trail line listing only some of its ids may account for it"
		}
		return p
	}
	check := func(s seenObs) {
		stored, ok := s.obs.StoredHash()
		if !ok || (s.obs.Timestamp != "" && s.obs.Timestamp < v.first) {
			return // unhashed, or from before the trail began
		}
		a, known := v.obs[s.obs.ID]
		p := Problem{Severity: Error, Path: c.rel(s.path), ID: s.obs.ID, Offset: -1}
		switch {
		case !known:
			p.Code = CodeObsUnanchored
			p.Message = "no audit trail line stored this observation: it was written past agentx (planted, hash and all)"
			out = append(out, soft(p, a, false))
		case a.hash == "" && archived[s.obs.ID].path != "":
			// Archived (or compacted) and still in its issue file: a move
			// cut short, which ARCHIVE_STILL_LIVE reports.
		case a.hash == "":
			p.Code = CodeObsUnanchored
			p.Message = "the audit trail says this observation was removed, yet it is here: written back past agentx"
			out = append(out, soft(p, a, true))
		case a.hash != stored:
			p.Code = CodeObsRehashed
			p.Message = fmt.Sprintf("replaced under a fresh hash: the audit trail stored it as %s, the file holds %s (edited and hashed again past agentx)", shorten.Hash(a.hash), shorten.Hash(stored))
			out = append(out, soft(p, a, true))
		}
	}
	for _, s := range live {
		check(s)
	}
	for id, a := range v.obs {
		if a.hash == "" {
			continue
		}
		if _, ok := live[id]; ok {
			continue
		}
		if _, ok := archived[id]; ok {
			continue
		}
		where := c.ws.MemoryDir()
		if a.issue > 0 {
			where = filepath.Join(where, fmt.Sprintf("issue-%d.json", a.issue))
		}
		p := Problem{Code: CodeObsDeleted, Severity: Error, Path: c.rel(where), ID: id, Offset: -1,
			Message: "the audit trail stored this observation and no line removed it, but no issue or archive file holds it (a file deleted or edited past agentx)"}
		if v.lastRestore > a.line {
			p.Severity, p.Message = Info, p.Message+"; a later checkpoint restore may account for it"
		}
		out = append(out, p)
	}
	return out
}

// trailDamaged reports whether checking the trail found an error (a line
// edited, cut, the chain broken): then it anchors nothing.
func (c *checker) trailDamaged() bool {
	for _, p := range c.rep.Problems {
		if p.Severity == Error && strings.HasPrefix(p.Code, "AUDIT_") {
			return true
		}
	}
	return false
}

// corruptFile reports whether the issue file the trail says holds id does
// not parse (reported as MEMORY_FILE_CORRUPT, by the sub-checker not yet
// merged or by c).
func (c *checker) corruptFile(id string, v *trailView) bool {
	a := v.obs[id]
	if a.issue == 0 {
		return false
	}
	data, err := os.ReadFile(filepath.Join(c.ws.MemoryDir(), fmt.Sprintf("issue-%d.json", a.issue)))
	if err != nil {
		return false
	}
	_, err = memory.ParseIssueFile("", data)
	return err != nil
}
