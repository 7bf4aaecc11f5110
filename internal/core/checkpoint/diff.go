package checkpoint

import (
	"context"

	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/statediff"
)

// Change kinds, from the checkpoint to the present state: "added" is in
// the present state and not in the checkpoint (a restore removes it).
const (
	Added   = statediff.Added
	Changed = statediff.Changed
	Removed = statediff.Removed
)

// FileChange is one file that differs.
type FileChange struct {
	Path   string `json:"path"`
	Change string `json:"change"`
}

// ItemChange is one clarification record or observation that differs.
type ItemChange = statediff.Item

// Diff is what differs between a checkpoint and the present state.
type Diff struct {
	Checkpoint   Checkpoint   `json:"checkpoint"`
	Files        []FileChange `json:"files"`
	Records      []ItemChange `json:"records"`
	Observations []ItemChange `json:"observations"`
	// Unreadable lists files whose records could not be compared (one side
	// does not parse): their file-level change is still in Files.
	Unreadable []string `json:"unreadable"`
}

// Show compares checkpoint id with the durable state now, file by file
// and, for ledgers and memory files, record by record.
func (s *Store) Show(ctx context.Context, id string) (*Diff, error) {
	c, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	then, err := s.TreeFiles(c)
	if err != nil {
		return nil, err
	}
	now, err := s.scanOpt(ctx, nil, false)
	if err != nil {
		return nil, err
	}
	d := &Diff{Checkpoint: c, Files: []FileChange{}, Records: []ItemChange{}, Observations: []ItemChange{}, Unreadable: []string{}}
	paths := map[string]bool{}
	for p := range then {
		paths[p] = true
	}
	for p := range now.files {
		paths[p] = true
	}
	for _, p := range sortedKeys(paths) {
		t, inThen := then[p]
		n, inNow := now.files[p]
		var change string
		switch {
		case !inThen:
			change = Added
		case !inNow:
			change = Removed
		case t.Hash != n.Hash:
			change = Changed
		default:
			continue
		}
		d.Files = append(d.Files, FileChange{Path: p, Change: change})
		var old, cur []byte
		if inThen {
			if old, err = s.repo.Blob(t.Hash); err != nil {
				return nil, err
			}
		}
		if inNow {
			if cur, err = readState(s.abs(p)); err != nil {
				return nil, err
			}
		}
		if err := d.compare(p, old, cur); err != nil {
			d.Unreadable = append(d.Unreadable, p)
		}
	}
	return d, nil
}

func readState(p string) ([]byte, error) {
	data, _, _, err := gitstore.ReadFile(p)
	return data, err
}

// compare adds the record-level changes of file p (nil: absent).
func (d *Diff) compare(p string, old, cur []byte) error {
	c, err := statediff.File(p, old, cur)
	if err != nil {
		return err
	}
	d.Records = append(d.Records, c.Records...)
	d.Observations = append(d.Observations, c.Observations...)
	return nil
}
