package statemerge

import (
	"bytes"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// Revive prepares a restored version of a state file (a checkpoint's)
// to replace the current one: what the restored version holds and a
// tombstone of either version removed is marked revived (at, by, reason),
// so the next merge with a copy that still carries the tombstone (the
// state branch, another branch through the merge driver) keeps it, as
// the person who restored it meant. The tombstones of both versions are
// kept. A file that is neither a ledger nor a memory issue file, or
// that has no tombstone to undo, is returned as it is.
func Revive(path string, restored, current []byte, at, by, reason string) ([]byte, error) {
	k, issue := classify(path)
	key := []byte(tombstone.Key)
	if k != kindLedger && k != kindMemory || k == kindMemory && !bytes.Contains(current, key) && !bytes.Contains(restored, key) {
		return restored, nil
	}
	var curExtra []jsonfile.Field
	if current != nil {
		var err error
		if curExtra, err = fileExtra(k, path, issue, current); err != nil {
			return restored, nil // the current file does not parse: nothing to undo from it
		}
	}
	rv := revival{path: path, issue: issue, curExtra: curExtra, at: at, by: by, reason: reason}
	if k == kindLedger {
		return rv.ledger(restored, current)
	}
	return rv.memory(restored)
}

// revival is one file's Revive.
type revival struct {
	path, at, by, reason string
	issue                int
	curExtra             []jsonfile.Field
}

func (rv revival) ledger(restored, current []byte) ([]byte, error) {
	if restored == nil {
		// The restore removes the ledger: what stays is an empty one
		// holding the high-water mark of the ids handed out.
		cur, err := ledger.Parse(rv.path, current, rv.issue)
		if err != nil || cur.MaxSeq() == 0 {
			return nil, nil
		}
		l := &ledger.Ledger{IssueNumber: cur.IssueNumber, Clarifications: []ledger.Record{}}
		l.SetHighWater(cur.MaxSeq())
		return jsonfile.Marshal(l)
	}
	l, err := ledger.Parse(rv.path, restored, rv.issue)
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := range l.Clarifications {
		ids = append(ids, l.Clarifications[i].ID, origin(&l.Clarifications[i]))
	}
	extra, changed, err := revived(rv.path, l.Extra, rv.curExtra, tombstone.Record, ids, rv.at, rv.by, rv.reason)
	if err != nil {
		return restored, err
	}
	l.Extra = extra
	// The ids handed out since the checkpoint are not handed out again:
	// the restored ledger keeps the current high-water mark.
	if current != nil {
		if cur, err := ledger.Parse(rv.path, current, rv.issue); err == nil && cur.MaxSeq() > l.MaxSeq() {
			l.SetHighWater(cur.MaxSeq())
			changed = true
		}
	}
	if !changed {
		return restored, nil
	}
	return jsonfile.Marshal(l)
}

func (rv revival) memory(restored []byte) ([]byte, error) {
	if restored == nil {
		return nil, nil // a memory file the checkpoint lacks is removed
	}
	f, err := memory.ParseIssueFile(rv.path, restored)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, o := range f.Observations {
		ids = append(ids, o.ID)
	}
	extra, changed, err := revived(rv.path, f.Extra, rv.curExtra, tombstone.Observation, ids, rv.at, rv.by, rv.reason)
	if err != nil || !changed {
		return restored, err
	}
	f.Extra = extra
	return f.Marshal()
}

func fileExtra(k kind, path string, issue int, data []byte) ([]jsonfile.Field, error) {
	if k == kindLedger {
		l, err := ledger.Parse(path, data, issue)
		if err != nil {
			return nil, err
		}
		return l.Extra, nil
	}
	f, err := memory.ParseIssueFile(path, data)
	if err != nil {
		return nil, err
	}
	return f.Extra, nil
}

// revived is extra with the tombstones of both versions and a revival of
// each of ids that one of them removed; changed is false when there was
// nothing to revive and the restored tombstones already were all of them.
func revived(path string, extra, curExtra []jsonfile.Field, kind string, ids []string, at, by, reason string) ([]jsonfile.Field, bool, error) {
	mine, err := tombstone.FromExtra(path, extra)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrUnmergeable, err)
	}
	theirs, err := tombstone.FromExtra(path, curExtra)
	if err != nil {
		theirs = nil
	}
	all := tombstone.Union(mine, theirs)
	var back []tombstone.Tombstone
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] && all.Has(kind, id) {
			seen[id] = true
			back = append(back, tombstone.Tombstone{Kind: kind, ID: id, Reason: reason, At: at, By: by, Revived: true})
		}
	}
	if len(back) == 0 && len(all) == len(mine) {
		return extra, false, nil
	}
	return tombstone.ToExtra(extra, all.Add(back...)), true, nil
}
