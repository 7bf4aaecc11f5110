package verify

import (
	"errors"
	"fmt"
	"path"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/checkpoint"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/statebranch"
)

// FromCheckpoints is what verify compares the workspace at root with,
// from its checkpoints s and what the audit trail in trailDir says of
// them: the copies
// of the audit trail and the chain heads recorded by the newest checkpoint
// and by the newest one agentx made (a cut or a rewritten trail), and the
// state the ledgers must still hold (the newest checkpoint agentx made, or
// the one a later restore put back); plus a problem for each checkpoint
// the trail does not name. A cut of the trail also removes the
// checkpoint.create lines it held, so the newest checkpoint is an anchor
// whether the trail names it or not: it can only add findings. No
// checkpoint is no baseline.
func FromCheckpoints(root string, s *checkpoint.Store, trailDir string) (anchors []audit.Anchor, base *Baseline, extra []Problem) {
	list, err := s.List()
	if errors.Is(err, gitstore.ErrRefNotFile) {
		// A FIFO where the ref should be: said, never opened (issue 32).
		return nil, nil, []Problem{{Code: CodeNotRegular, Severity: Error, Path: s.RefName(), Offset: -1, Message: err.Error()}}
	}
	if err != nil || len(list) == 0 {
		return nil, nil, nil
	}
	if short := s.RestorePending(); short != "" {
		extra = append(extra, Problem{Code: CodeRestoreLost, Severity: Warning, Path: s.RefName(), ID: short, Offset: -1,
			Message: fmt.Sprintf("a restore of checkpoint %s was killed before its %s line: what it put back or removed is not on the trail yet", short, checkpoint.OpRestore),
			Repair:  "append its " + checkpoint.OpRestore + " line"})
	}
	trail := checkpoint.ReadTrail(trailDir)
	trail.MarkUnaudited(list)
	made := -1
	for i, c := range list {
		switch {
		case c.Unaudited && s.Pending(c):
			// agentx's own, killed between the ref and the line (issue 32).
			extra = append(extra, Problem{Code: CodeCheckpointLost, Severity: Warning, Path: s.RefName(), ID: c.Short, Offset: -1,
				Message: fmt.Sprintf("checkpoint %s (%q) was made by agentx (its pending mark says so) but its %s line was lost: the command was killed between the two", c.Short, c.Message, checkpoint.OpCreate),
				Repair:  "append its " + checkpoint.OpCreate + " line"})
		case c.Unaudited:
			extra = append(extra, Problem{Code: CodeCheckpointForged, Severity: Error,
				Path: s.RefName(), ID: c.Short, Offset: -1, Message: checkpoint.ForgedMessage(c)})
		case made < 0:
			made = i
		}
	}
	picks := []int{0}
	if made > 0 {
		picks = append(picks, made)
	}
	var trees []*statebranch.Tree
	for _, i := range picks {
		tree, err := statebranch.OpenTree(root, list[i].Commit)
		if err != nil {
			return anchors, nil, extra
		}
		trees = append(trees, tree)
		if name, data, err := audit.NewestFS(tree, "state"); err == nil && name != "" {
			anchors = append(anchors, audit.Anchor{Source: fmt.Sprintf("checkpoint %s (%s)", list[i].Short, path.Base(name)), Data: data, Head: list[i].AuditHead})
		}
	}
	last := list[picks[len(picks)-1]]
	base = &Baseline{Source: "checkpoint " + last.Short, FS: trees[len(trees)-1]}
	if at, ok := trail.At(last); ok && trail.LastRestoreAt > at {
		base = restoredBaseline(root, s, trail, list)
	}
	return anchors, base, extra
}

// restoredBaseline is the baseline after a restore: the checkpoint put
// back (nil when it is not one agentx made, or is gone).
func restoredBaseline(root string, s *checkpoint.Store, trail checkpoint.Trail, list []checkpoint.Checkpoint) *Baseline {
	target, err := s.Get(trail.LastRestore)
	if err != nil {
		return nil
	}
	for _, c := range list {
		if c.ID == target.ID && c.Unaudited {
			return nil
		}
	}
	tree, err := statebranch.OpenTree(root, target.Commit)
	if err != nil {
		return nil
	}
	return &Baseline{Source: "checkpoint " + target.Short + " (restored)", FS: tree}
}
