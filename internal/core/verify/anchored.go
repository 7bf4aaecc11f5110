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

func readAnchors(dir string) (*memanchor.View, error) {
	entries, err := audit.History(dir, audit.Filter{})
	if err != nil {
		return nil, err
	}
	return anchorsOf(entries), nil
}

// anchorOpNames are the operations the anchoring reads, for CheckOps.
func anchorOpNames() []string {
	out := make([]string, 0, len(memanchor.Ops))
	for op := range memanchor.Ops {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

// anchorsOf is the view of entries (lines of one time in their order, as
// History gives them; their position is their order).
func anchorsOf(entries []audit.Entry) *memanchor.View {
	v := memanchor.NewView()
	for i := range entries {
		v.Fold(int64(i), &entries[i], nil)
	}
	return v
}

// anchored checks live (and archived) observations against the trail.
// busy says writers were at work while the files were read: what a writer
// has stored but not yet written its line for is then a lag, not a
// finding.
func (c *checker) anchored(live, archived *obsSet, busy bool) {
	v := c.view
	if v == nil || v.Lines == 0 {
		return // no trail read (or none written): nothing to anchor on
	}
	for _, p := range c.opt.Extra {
		if p.Code == CodeRestoreLost {
			// A restore cut off before its line accounts for anything.
			v.RestoreAtEnd()
		}
	}
	findings := c.anchorFindings(live, archived, v)
	if len(findings) > 0 {
		findings = c.recheckAnchors(live, archived, v, findings)
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

// recheckAnchors reads the trail once more before findings are believed:
// a writer appends its line just after its write.
func (c *checker) recheckAnchors(live, archived *obsSet, v *memanchor.View, findings []Problem) []Problem {
	if c.opt.beforeRecheck != nil {
		c.opt.beforeRecheck()
	} else {
		time.Sleep(recheckDelay)
	}
	again, err := readAnchors(c.ws.StateDir())
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
	first := map[string]bool{}
	for _, p := range findings {
		first[p.ID] = true
	}
	return slices.DeleteFunc(c.anchorFindings(live, archived, again), func(p Problem) bool {
		if !first[p.ID] {
			return true
		}
		now, removed := again.Obs[p.ID]
		then, known := v.Obs[p.ID]
		return p.Code == CodeObsUnanchored && removed && now.Hash == "" && (!known || then.Hash != "")
	})
}

func (c *checker) anchorFindings(live, archived *obsSet, v *memanchor.View) []Problem {
	var out []Problem
	add := func(path string, f memanchor.Finding) {
		p := Problem{Code: f.Code, Severity: Error, Path: c.rel(path), ID: f.ID, Offset: -1, Message: f.Message}
		if f.Soft {
			p.Severity = Info
		}
		out = append(out, p)
	}
	for i := range live.rows {
		if !live.rows[i].hashed {
			continue // the rule judges only what carries a hash
		}
		o := live.observation(int32(i))
		if f, ok := v.Judge(&o, archived.has(o.ID)); ok {
			add(live.path(int32(i)), f)
		}
	}
	for id, a := range v.Obs {
		if live.has(id) || archived.has(id) {
			continue
		}
		f, ok := v.Deleted(id, a)
		if !ok {
			continue
		}
		where := c.ws.MemoryDir()
		if a.Issue > 0 {
			where = filepath.Join(where, fmt.Sprintf("issue-%d.json", a.Issue))
		}
		add(where, f)
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
func (c *checker) corruptFile(id string, v *memanchor.View) bool {
	a := v.Obs[id]
	if a.Issue == 0 {
		return false
	}
	data, err := os.ReadFile(filepath.Join(c.ws.MemoryDir(), fmt.Sprintf("issue-%d.json", a.Issue)))
	if err != nil {
		return false
	}
	_, err = memory.ParseIssueFile("", data)
	return err != nil
}
