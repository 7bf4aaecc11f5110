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
	"github.com/agentx-dev/agentx/internal/core/memanchor"
	"github.com/agentx-dev/agentx/internal/core/memory"
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
	CodeObsUnanchored = memanchor.CodeUnanchored
	CodeObsRehashed   = memanchor.CodeRehashed
	CodeObsDeleted    = memanchor.CodeDeleted
)

// The rule itself (what an anchor is, what each finding means, what
// softens it) is package memanchor's, which the read paths apply too.

// anchorOpNames are the operations the anchoring reads, for CheckOps.
func anchorOpNames() []string {
	out := slices.Clone(memanchor.Ops)
	sort.Strings(out)
	return out
}

// anchorHit is what the rule found against an observation memoryFiles
// read, with what judging it again needs.
type anchorHit struct {
	f    memanchor.Finding
	path string
	// obs is the observation (its id, time and stored hash; its text
	// dropped).
	obs memory.Observation
	// removed says its anchor's line removed it: no finding when the
	// archive holds it too (a move cut short, ARCHIVE_STILL_LIVE's).
	removed bool
}

// judgeRead applies the rule to an observation as memoryFiles reads it
// from path (the trail was read before the store): only what it finds is
// kept, so the observations need not be held for it.
func (c *checker) judgeRead(path string, o *memory.Observation) {
	v := c.view
	if c.fsys != nil || v == nil || v.Lines == 0 {
		return
	}
	stored, hashed := o.StoredHash()
	if !hashed {
		return // the rule judges only what carries a hash
	}
	i, known := c.anchors.lookup(o.ID)
	if known && c.anchors.holds(i, stored) {
		return // the trail stored it as it is: the common case
	}
	var a memanchor.Anchor
	if known {
		a = c.anchors.anchor(i)
	}
	if f, ok := v.JudgeAnchor(o, a, known, false); ok {
		kept := *o
		kept.Summary, kept.Agent, kept.SessionID = "", "", ""
		c.hits = append(c.hits, anchorHit{f: f, path: path, obs: kept, removed: known && a.Hash == ""})
	}
}

// archivedHits drops the hits the archive accounts for.
func (c *checker) archivedHits(archived *obsSet) {
	c.hits = slices.DeleteFunc(c.hits, func(h anchorHit) bool { return h.removed && archived.has(h.obs.ID) })
}

// restoreCut makes a restore cut off before its line (found by the
// caller) the last thing the trail did: it accounts for anything.
func (c *checker) restoreCut() {
	if c.fsys != nil || c.view == nil || c.view.Lines == 0 {
		return
	}
	for _, p := range c.opt.Extra {
		if p.Code == CodeRestoreLost {
			c.view.RestoreAtEnd()
		}
	}
}

// anchored reports what the rule found against the observations sub read
// (live and archived) and the anchors no file holds. busy says writers
// were at work while the files were read: what a writer has stored but
// not yet written its line for is then a lag, not a finding.
func (c *checker) anchored(sub *checker, busy bool) {
	v := c.view
	if v == nil || v.Lines == 0 {
		return // no trail read (or none written): nothing to anchor on
	}
	findings := c.anchorFindings(sub.hits, sub.live, sub.archived)
	if len(findings) > 0 {
		findings = c.recheckAnchors(sub, findings)
	}
	damaged := c.trailDamaged()
	for _, p := range findings {
		if p.Code == CodeObsDeleted && c.corruptFile(p.ID) {
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

// anchorProblem is finding f as a problem of path.
func (c *checker) anchorProblem(path string, f memanchor.Finding) Problem {
	p := Problem{Code: f.Code, Severity: Error, Path: c.rel(path), ID: f.ID, Offset: -1, Message: f.Message}
	if f.Soft {
		p.Severity = Info
	}
	return p
}

// deletedAt is where the observation of an anchor of issue n was.
func (c *checker) deletedAt(n int) string {
	if n > 0 {
		return filepath.Join(c.ws.MemoryDir(), fmt.Sprintf("issue-%d.json", n))
	}
	return c.ws.MemoryDir()
}

// anchorFindings are the hits, then the anchors no issue or archive file
// holds (by id).
func (c *checker) anchorFindings(hits []anchorHit, live, archived *obsSet) []Problem {
	var out []Problem
	for _, h := range hits {
		out = append(out, c.anchorProblem(h.path, h.f))
	}
	s := c.anchors
	var lost []int32
	for i := range int32(s.rows.len()) {
		r := s.rows.at(i)
		if r.flags&anchorRemoved != 0 {
			continue
		}
		if _, ok := live.lookupKey(r.key); ok {
			continue
		}
		if _, ok := archived.lookupKey(r.key); ok {
			continue
		}
		lost = append(lost, i)
	}
	if len(lost) == 0 {
		return out
	}
	ids := c.anchorIDs(lost)
	nHits := len(out)
	for _, i := range lost {
		id, ok := ids[i]
		if !ok {
			continue // the trail no longer names it: read again below
		}
		a := s.anchor(i)
		if f, ok := c.view.Deleted(id, a); ok {
			out = append(out, c.anchorProblem(c.deletedAt(a.Issue), f))
		}
	}
	// A line names its ids in no set order: by id, the report is the
	// same every time.
	slices.SortFunc(out[nHits:], func(p, q Problem) int { return strings.Compare(p.ID, q.ID) })
	return out
}

// anchorIDs are the ids of the anchors of rows, read again from the
// trail: the rows keep only their keys.
func (c *checker) anchorIDs(rows []int32) map[int32]string {
	want := make(map[idKey]int32, len(rows))
	for _, i := range rows {
		want[c.anchors.rows.at(i).key] = i
	}
	ids := make(map[int32]string, len(rows))
	look := func(id string) {
		if i, ok := want[keyOf(id)]; ok {
			ids[i] = id
		}
	}
	_ = eachEntry(c.ws.StateDir(), func(_ int64, e *audit.Entry) {
		for id := range e.Before {
			look(id)
		}
		for id := range e.After {
			look(id)
		}
	})
	return ids
}

// eachEntry hands fn each entry of the trail in dir with its position:
// the lines History returns, in the chain's order (History sorts them by
// time; the rule orders lines by time first, then position, which for
// lines of one time is this order), one file held at a time.
func eachEntry(dir string, fn func(seq int64, e *audit.Entry)) error {
	var seq int64
	return audit.Each(dir, func(e *audit.Entry) {
		fn(seq, e)
		seq++
	})
}

// readAnchorsOf reads the trail in dir again, keeping the anchors of the
// ids only.
func readAnchorsOf(dir string, only map[string]bool) (*memanchor.View, error) {
	v := memanchor.NewView()
	v.Keep = func(id string, a memanchor.Anchor) bool {
		if !only[id] {
			return false
		}
		if old, had := v.Obs[id]; had && old.At.After(a.At) {
			return false
		}
		v.Obs[id] = a
		return true
	}
	if err := eachEntry(dir, func(seq int64, e *audit.Entry) { v.Fold(seq, e, nil) }); err != nil {
		return nil, err
	}
	return v, nil
}

// recheckAnchors reads the trail once more before findings are believed:
// a writer appends its line just after its write.
func (c *checker) recheckAnchors(sub *checker, findings []Problem) []Problem {
	if c.opt.beforeRecheck != nil {
		c.opt.beforeRecheck()
	} else {
		time.Sleep(recheckDelay)
	}
	v := c.view
	first := map[string]bool{}
	for _, p := range findings {
		first[p.ID] = true
	}
	again, err := readAnchorsOf(c.ws.StateDir(), first)
	if err != nil {
		return findings
	}
	if v.HasRestore && (!again.HasRestore || v.Restore.After(again.Restore)) {
		again.Restore, again.HasRestore = v.Restore, true
	}
	// The trail read again is newer than the files: a note stored since
	// shows in it but not in them, and one removed since is removed in it
	// but still in them. So the second reading only clears: a finding
	// stands when the first reading, older than the files, had one for the
	// same note too, and a removal only the second reading holds accuses
	// nothing (a writer stored and removed the note while verify read).
	// Only the ids of the first reading's findings are judged again: the
	// others could only be cleared.
	var out []Problem
	for _, h := range sub.hits {
		if f, ok := again.Judge(&h.obs, sub.archived.has(h.obs.ID)); ok {
			out = append(out, c.anchorProblem(h.path, f))
		}
	}
	for _, p := range findings {
		a, ok := again.Obs[p.ID]
		if !ok || sub.live.has(p.ID) || sub.archived.has(p.ID) {
			continue
		}
		if f, ok := again.Deleted(p.ID, a); ok {
			out = append(out, c.anchorProblem(c.deletedAt(a.Issue), f))
		}
	}
	return slices.DeleteFunc(out, func(p Problem) bool {
		now, removed := again.Obs[p.ID]
		i, known := c.anchors.lookup(p.ID)
		return p.Code == CodeObsUnanchored && removed && now.Hash == "" && (!known || !c.anchors.removed(i))
	})
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
func (c *checker) corruptFile(id string) bool {
	i, ok := c.anchors.lookup(id)
	if !ok {
		return false
	}
	n := c.anchors.anchor(i).Issue
	if n == 0 {
		return false
	}
	data, err := os.ReadFile(filepath.Join(c.ws.MemoryDir(), fmt.Sprintf("issue-%d.json", n)))
	if err != nil {
		return false
	}
	_, err = memory.ParseIssueFile("", data)
	return err != nil
}
