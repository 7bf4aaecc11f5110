package hookcmd

import (
	"fmt"
	"path"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/checkpoint"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
	"github.com/agentx-dev/agentx/internal/core/verify"
)

// checkpointTrail is what the audit trail says of the checkpoints: which
// ones agentx made (a checkpoint.create line naming the id and tree), in
// the trail's order, and the checkpoint.restore lines.
type checkpointTrail struct {
	// made maps "SHORT tree:TREE" to the line's position in the trail.
	made map[string]int
	// lastRestore is the id the last checkpoint.restore line names and
	// its position (-1: none).
	lastRestore   string
	lastRestoreAt int
}

const (
	opCheckpointCreate  = "checkpoint.create"
	opCheckpointRestore = "checkpoint.restore"
)

// readCheckpointTrail reads the local audit trail's checkpoint lines.
func (a *App) readCheckpointTrail() checkpointTrail {
	t := checkpointTrail{made: map[string]int{}, lastRestoreAt: -1}
	entries, err := audit.History(a.AuditTrail().Dir, audit.Filter{})
	if err != nil {
		return t
	}
	for i, e := range entries {
		switch e.Op {
		case opCheckpointCreate:
			for id, v := range e.After {
				t.made[id+" "+v] = i
			}
		case opCheckpointRestore:
			if len(e.IDs) > 0 {
				t.lastRestore, t.lastRestoreAt = e.IDs[0], i
			}
		}
	}
	return t
}

// at is the position of c's checkpoint.create line; ok is false when the
// trail has none: a commit agentx did not make (git commit-tree), or
// whose line was lost (a kill between the commit and the line).
func (t checkpointTrail) at(c checkpoint.Checkpoint) (int, bool) {
	i, ok := t.made[c.Short+" tree:"+c.Tree]
	return i, ok
}

// markUnaudited sets Unaudited on the checkpoints of list the trail does
// not name.
func (t checkpointTrail) markUnaudited(list []checkpoint.Checkpoint) {
	for i := range list {
		_, ok := t.at(list[i])
		list[i].Unaudited = !ok
	}
}

// unauditedMessage says why a checkpoint is not trusted.
func unauditedMessage(c checkpoint.Checkpoint) string {
	return fmt.Sprintf("checkpoint %s (%q) has no %s line in the audit trail: agentx did not make it (a commit written with git commit-tree?) or its line was lost",
		c.Short, c.Message, opCheckpointCreate)
}

// verifyBaseline is what verify compares the workspace with, from the
// checkpoints: the copies of the audit trail and the chain heads recorded
// by the newest checkpoint and by the newest one agentx made (a cut or a
// rewritten trail), and the state the ledgers must still hold (the
// newest checkpoint agentx made, or the one a later restore put back);
// plus a problem for each checkpoint the trail does not name. A cut of
// the trail also removes the checkpoint.create lines it held, so the
// newest checkpoint is an anchor whether the trail names it or not: it
// can only add findings. No checkpoint, or no git, is no baseline.
func (a *App) verifyBaseline() (anchors []audit.Anchor, base *verify.Baseline, extra []verify.Problem) {
	s, err := a.checkpoints(0)
	if err != nil {
		return nil, nil, nil
	}
	list, err := s.List()
	if err != nil || len(list) == 0 {
		return nil, nil, nil
	}
	trail := a.readCheckpointTrail()
	trail.markUnaudited(list)
	made := -1
	for i, c := range list {
		if c.Unaudited {
			extra = append(extra, verify.Problem{Code: verify.CodeCheckpointForged, Severity: verify.Error,
				Path: s.RefName(), ID: c.Short, Offset: -1, Message: unauditedMessage(c)})
		} else if made < 0 {
			made = i
		}
	}
	picks := []int{0}
	if made > 0 {
		picks = append(picks, made)
	}
	var trees []*statebranch.Tree
	for _, i := range picks {
		tree, err := statebranch.OpenTree(a.Workspace().Root, list[i].Commit)
		if err != nil {
			return anchors, nil, extra
		}
		trees = append(trees, tree)
		if name, data, err := audit.NewestFS(tree, "state"); err == nil && name != "" {
			anchors = append(anchors, audit.Anchor{Source: fmt.Sprintf("checkpoint %s (%s)", list[i].Short, path.Base(name)), Data: data, Head: list[i].AuditHead})
		}
	}
	last := list[picks[len(picks)-1]]
	base = &verify.Baseline{Source: "checkpoint " + last.Short, FS: trees[len(trees)-1]}
	if at, ok := trail.at(last); ok && trail.lastRestoreAt > at {
		base = a.restoredBaseline(s, trail, list)
	}
	return anchors, base, extra
}

// restoredBaseline is the baseline after a restore: the checkpoint put
// back (nil when it is not one agentx made, or is gone).
func (a *App) restoredBaseline(s *checkpoint.Store, trail checkpointTrail, list []checkpoint.Checkpoint) *verify.Baseline {
	target, err := s.Get(trail.lastRestore)
	if err != nil {
		return nil
	}
	for _, c := range list {
		if c.ID == target.ID && c.Unaudited {
			return nil
		}
	}
	tree, err := statebranch.OpenTree(a.Workspace().Root, target.Commit)
	if err != nil {
		return nil
	}
	return &verify.Baseline{Source: "checkpoint " + target.Short + " (restored)", FS: tree}
}
