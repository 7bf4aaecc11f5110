package checkpoint

import (
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// The audit operations of checkpoints.
const (
	OpCreate  = "checkpoint.create"
	OpRestore = "checkpoint.restore"
)

// Trail is what the audit trail says of the checkpoints: which ones
// agentx made (a checkpoint.create line naming the id and tree), in the
// trail's order, and the checkpoint.restore lines. A checkpoint no line
// names was not made by agentx (git commit-tree), or its line was lost.
type Trail struct {
	// made maps "SHORT tree:TREE" to the line's position in the trail.
	made map[string]int
	// LastRestore is the id the last checkpoint.restore line names and
	// LastRestoreAt its position (-1: none).
	LastRestore   string
	LastRestoreAt int
}

// ReadTrail reads the checkpoint lines of the audit trail in dir. A trail
// that cannot be read names no checkpoint: all are then unaudited.
func ReadTrail(dir string) Trail {
	entries, err := audit.History(dir, audit.Filter{})
	if err != nil {
		return TrailOf(nil)
	}
	return TrailOf(entries)
}

// TrailOf is the Trail of entries, oldest first.
func TrailOf(entries []audit.Entry) Trail {
	t := Trail{made: map[string]int{}, LastRestoreAt: -1}
	for i, e := range entries {
		switch e.Op {
		case OpCreate:
			for id, v := range e.After {
				t.made[id+" "+v] = i
			}
		case OpRestore:
			if len(e.IDs) > 0 {
				t.LastRestore, t.LastRestoreAt = e.IDs[0], i
			}
		}
	}
	return t
}

// At is the position of c's checkpoint.create line; ok is false when the
// trail has none: a commit agentx did not make (git commit-tree), or
// whose line was lost (a kill between the commit and the line).
func (t Trail) At(c Checkpoint) (int, bool) {
	i, ok := t.made[c.Short+" tree:"+c.Tree]
	return i, ok
}

// MarkUnaudited sets Unaudited on the checkpoints of list the trail does
// not name, and returns how many.
func (t Trail) MarkUnaudited(list []Checkpoint) int {
	n := 0
	for i := range list {
		_, ok := t.At(list[i])
		list[i].Unaudited = !ok
		if !ok {
			n++
		}
	}
	return n
}

// UnauditedMessage says why c is not trusted.
func UnauditedMessage(c Checkpoint) string {
	return fmt.Sprintf("checkpoint %s (%q) has no %s line in the audit trail: agentx did not make it (a commit written with git commit-tree?) or its line was lost",
		c.Short, c.Message, OpCreate)
}

// ForgedMessage says why c, with no line and no pending mark, is not
// agentx's (verify's CHECKPOINT_UNAUDITED).
func ForgedMessage(c Checkpoint) string {
	return fmt.Sprintf("checkpoint %s (%q) was not made by agentx: no %s line names it and agentx left no pending mark for it (a commit written with git commit-tree?); `checkpoint restore` refuses it without --force",
		c.Short, c.Message, OpCreate)
}

// CreateEntry is the audit line of a checkpoint made (ok false when none
// was: an unchanged state is nothing that happened).
func CreateEntry(res *Result, message string) (audit.Entry, bool) {
	if res == nil || !res.Created {
		return audit.Entry{}, false
	}
	return audit.Entry{Op: OpCreate, IDs: []string{res.Short},
		After: map[string]string{res.Short: "tree:" + res.Tree}, Detail: shorten.Line(message, 200)}, true
}

// RestoreEntry is the audit line of a restore made.
func RestoreEntry(res *RestoreResult) audit.Entry {
	return audit.Entry{Op: OpRestore, IDs: []string{res.Target.Short},
		Detail: fmt.Sprintf("%d written, %d removed", len(res.Written), len(res.Removed))}
}
