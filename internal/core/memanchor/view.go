// Package memanchor owns the rule that anchors observations on the audit
// trail (issue 32) and the derived index that lets a read path apply it
// without reading the whole trail.
//
// Every write of the memory store that lands is one trail line naming each
// observation it stored with its content hash, or removed. What the trail
// last said of an observation is its anchor; an observation whose stored
// hash is not its anchor's was replaced past agentx (OBSERVATION_REHASHED),
// one no line stored was planted (OBSERVATION_UNANCHORED), one the trail
// stored and never removed that no file holds was deleted
// (OBSERVATION_DELETED). `verify` applies the rule to the whole store
// (View, Judge); recall, `memory search/get/timeline` and the MCP tools
// apply the same rule to the issues they show through Index, which keeps
// the anchors and its per-issue verdicts in two local, derived files
// extended from the trail's appended tail and rebuilt whenever the trail
// is not the one they were made from.
package memanchor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// The codes, verify's (docs/verify.md).
const (
	CodeUnanchored = "OBSERVATION_UNANCHORED"
	CodeRehashed   = "OBSERVATION_REHASHED"
	CodeDeleted    = "OBSERVATION_DELETED"
	// CodeHash is the content hash's own finding: the text edited, its
	// hash left.
	CodeHash = "OBSERVATION_HASH_MISMATCH"
)

// RestoreOp is the trail's checkpoint restore, which brings observations
// back without a line each.
const RestoreOp = "checkpoint.restore"

// CreateOp is the trail's checkpoint made (its id and tree).
const CreateOp = "checkpoint.create"

// Ops are the trail's operations that store or remove observations (a
// slice, laid out at build time: a map is built at every process start).
var Ops = []string{
	memory.OpCapture, memory.OpAdd, memory.OpCompact, memory.OpRemove,
	memory.OpArchive, memory.OpRestore, memory.OpImport, "sync.merge",
}

// IsOp reports whether op is one of Ops.
func IsOp(op string) bool { return slices.Contains(Ops, op) }

// Key orders the trail's lines as verify reads them: by time, lines of
// one time in the chain's order (Seq, the line's position in it).
type Key struct {
	Time string
	Seq  int64
}

// After reports whether k comes after o.
func (k Key) After(o Key) bool {
	if k.Time != o.Time {
		return k.Time > o.Time
	}
	return k.Seq > o.Seq
}

// Anchor is what the trail last said of one observation.
type Anchor struct {
	// Hash is the content hash its last line stored, "" when that line
	// removed it.
	Hash string
	At   Key
	// Issue is the issue the line named it under.
	Issue int
}

// View is what the trail says of the observations: each one's anchor, and
// what softens the rule (a restore, a line that listed only some ids).
type View struct {
	Obs map[string]Anchor
	// Keep, when set, is handed each anchor a line sets instead of Obs,
	// which stays empty: it keeps a, unless the one it holds for id is
	// later by Key, and reports whether it did. verify keeps a million
	// anchors so, in fixed-size rows rather than a map of strings
	// (issue 35).
	Keep func(id string, a Anchor) bool
	// Restore is the last checkpoint.restore (HasRestore false: none).
	Restore    Key
	HasRestore bool
	// Cut is true once a line of Ops listed only audit.MaxIDs of its ids.
	Cut bool
	// Lines counts the lines folded; First and Last are the earliest and
	// latest times.
	Lines       int64
	First, Last string
	// Checkpoints are the trees of the checkpoints the trail says agentx
	// made (checkpoint.create: id -> tree), the last one made, and the
	// one the last restore put back: what verify compares the ledgers
	// with (Baseline).
	Checkpoints   map[string]string
	LastCreate    Key
	LastCreateID  string
	RestoreTarget string
}

// NewView is the view of an empty trail.
func NewView() *View { return &View{Obs: map[string]Anchor{}, Checkpoints: map[string]string{}} }

// Baseline is the checkpoint verify compares the ledgers with: the last
// one agentx made, or the one a later restore put back (ok false: none
// the trail names).
func (v *View) Baseline() (id, tree string, ok bool) {
	id = v.LastCreateID
	if v.HasRestore && v.RestoreTarget != "" && (id == "" || v.Restore.After(v.LastCreate)) {
		id = v.RestoreTarget
	}
	tree, ok = v.Checkpoints[id]
	return id, tree, ok && id != ""
}

// Fold adds the trail's line e at position seq of the chain, in any
// order: an observation's anchor is its latest line by Key. touched, when
// set, is told the issue of each anchor the line set.
func (v *View) Fold(seq int64, e *audit.Entry, touched func(issue int)) {
	at := Key{Time: e.Time, Seq: seq}
	v.Lines++
	if e.Time != "" && (v.First == "" || e.Time < v.First) {
		v.First = e.Time
	}
	if e.Time > v.Last {
		v.Last = e.Time
	}
	switch e.Op {
	case RestoreOp:
		v.foldRestore(at, e)
		return
	case CreateOp:
		v.foldCreate(at, e)
		return
	}
	if !IsOp(e.Op) {
		return
	}
	if e.MoreIDs > 0 {
		v.Cut = true
	}
	set := func(id, hash string) {
		n, ok := obsIssue(id, e)
		if !ok {
			return
		}
		a := Anchor{Hash: hash, At: at, Issue: n}
		if v.Keep != nil {
			if !v.Keep(id, a) {
				return
			}
		} else {
			if old, had := v.Obs[id]; had && old.At.After(at) {
				return
			}
			v.Obs[id] = a
		}
		if touched != nil {
			touched(n)
		}
	}
	for id := range e.Before {
		if _, after := e.After[id]; !after {
			set(id, "")
		}
	}
	for id, h := range e.After {
		set(id, h)
	}
}

func (v *View) foldRestore(at Key, e *audit.Entry) {
	if !v.HasRestore || at.After(v.Restore) {
		v.Restore, v.HasRestore = at, true
		if len(e.IDs) > 0 {
			v.RestoreTarget = e.IDs[0]
		}
	}
}

func (v *View) foldCreate(at Key, e *audit.Entry) {
	for id, val := range e.After {
		if tree, ok := strings.CutPrefix(val, "tree:"); ok {
			v.Checkpoints[id] = tree
			if v.LastCreateID == "" || at.After(v.LastCreate) {
				v.LastCreate, v.LastCreateID = at, id
			}
		}
	}
}

// RestoreAtEnd makes a restore the last thing the trail did (one cut off
// before its line, whose pending mark verify found).
func (v *View) RestoreAtEnd() {
	v.Restore, v.HasRestore = Key{Time: "\xff", Seq: 1 << 62}, true
}

// obsIssue is the issue of observation id named by e; ok is false for
// what is no observation (a sync line also names ledger records and
// files).
func obsIssue(id string, e *audit.Entry) (int, bool) {
	if n, ok := memory.IssueOfID(id); ok {
		return n, true
	}
	if e.Op == "sync.merge" {
		return 0, false
	}
	return e.Issue, true
}

// IssueKey is the issue whose anchors hold id: its own for an id of the
// reference shape, else the issue of the file it is in.
func IssueKey(id string, file int) int {
	if n, ok := memory.IssueOfID(id); ok {
		return n
	}
	return file
}

// Finding is what the rule makes of one observation.
type Finding struct {
	ID      string `json:"id"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Soft findings are information, not errors: a checkpoint restore or
	// a line listing only some of its ids may account for them. Read
	// paths show what is soft, as verify reports it as information.
	Soft bool `json:"soft,omitempty"`
}

// Judge applies the rule to an observation present in an issue file;
// archived says the archive holds it too (a move cut short). ok is false
// when the trail has nothing against it (or does not judge it: unhashed,
// older than the trail, an empty trail).
func (v *View) Judge(o *memory.Observation, archived bool) (Finding, bool) {
	a, known := v.Obs[o.ID]
	return v.JudgeAnchor(o, a, known, archived)
}

// JudgeAnchor is Judge with o's anchor given (known false: the trail
// holds none), for a view whose anchors are kept elsewhere (Keep).
func (v *View) JudgeAnchor(o *memory.Observation, a Anchor, known, archived bool) (Finding, bool) {
	stored, hashed := o.StoredHash()
	if v.Lines == 0 || !hashed {
		return Finding{}, false
	}
	if !known && o.Timestamp != "" && o.Timestamp < v.First {
		// Older than the trail (a workspace upgraded): not judged. One the
		// trail names is, whatever its time (the first note of a
		// workspace is stamped just before its own line).
		return Finding{}, false
	}
	f := Finding{ID: o.ID}
	switch {
	case !known:
		f.Code = CodeUnanchored
		f.Message = "no audit trail line stored this observation: it was written past agentx (planted, hash and all)"
		f.Soft = v.HasRestore || v.Cut
	case a.Hash == "" && archived:
		return Finding{}, false // archived and still live: ARCHIVE_STILL_LIVE's
	case a.Hash == "":
		f.Code = CodeUnanchored
		f.Message = "the audit trail says this observation was removed, yet it is here: written back past agentx"
		f.Soft = v.HasRestore && v.Restore.After(a.At)
	case a.Hash != stored:
		f.Code = CodeRehashed
		f.Message = fmt.Sprintf("replaced under a fresh hash: the audit trail stored it as %s, the file holds %s (edited and hashed again past agentx)",
			shorten.Hash(a.Hash), shorten.Hash(stored))
		f.Soft = v.HasRestore && v.Restore.After(a.At)
	default:
		return Finding{}, false
	}
	if f.Soft {
		f.Message += "; a checkpoint restore or a trail line listing only some of its ids may account for it"
	}
	return f, true
}

// Deleted is the finding of an anchor no issue or archive file holds: ok
// false when its last line removed it.
func (v *View) Deleted(id string, a Anchor) (Finding, bool) {
	if a.Hash == "" {
		return Finding{}, false
	}
	f := Finding{ID: id, Code: CodeDeleted,
		Message: "the audit trail stored this observation and no line removed it, but no issue or archive file holds it (a file deleted or edited past agentx)"}
	if v.HasRestore && v.Restore.After(a.At) {
		f.Soft, f.Message = true, f.Message+"; a later checkpoint restore may account for it"
	}
	return f, true
}
