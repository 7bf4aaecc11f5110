package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/gitstore"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Change kinds, from the checkpoint to the present state: "added" is in
// the present state and not in the checkpoint (a restore removes it).
const (
	Added   = "added"
	Changed = "changed"
	Removed = "removed"
)

// FileChange is one file that differs.
type FileChange struct {
	Path   string `json:"path"`
	Change string `json:"change"`
}

// ItemChange is one clarification record or observation that differs.
type ItemChange struct {
	ID     string `json:"id"`
	Issue  int    `json:"issue"`
	Change string `json:"change"`
	// Detail says what changed in a changed record (round, status, thread
	// entries) or observation.
	Detail string `json:"detail,omitempty"`
}

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
	dir, name := path.Split(p)
	switch {
	case dir == "state/clarifications/":
		issue, ok := workspace.LedgerIssue(name)
		if !ok {
			return nil
		}
		a, err := ledgerRecords(p, old, issue)
		if err != nil {
			return err
		}
		b, err := ledgerRecords(p, cur, issue)
		if err != nil {
			return err
		}
		d.Records = append(d.Records, diffItems(a, b, issue, recordDetail)...)
	case dir == "memory/" && strings.HasPrefix(name, "issue-"), dir == "memory/archive/":
		if dir == "memory/archive/" {
			// Archived originals: what compaction moved. Listed by
			// file, not by observation, so a compaction reads as the
			// summaries it added and the originals it removed.
			return nil
		}
		issue, _ := workspace.LedgerIssue(name)
		a, err := observations(p, old)
		if err != nil {
			return err
		}
		b, err := observations(p, cur)
		if err != nil {
			return err
		}
		d.Observations = append(d.Observations, diffItems(a, b, issue, observationDetail)...)
	}
	return nil
}

// item is one record or observation with its JSON form for comparison.
type item struct {
	raw []byte
	val any
}

func ledgerRecords(p string, data []byte, issue int) (map[string]item, error) {
	out := map[string]item{}
	if data == nil {
		return out, nil
	}
	l, err := ledger.Parse(p, data, issue)
	if err != nil {
		return nil, err
	}
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out[r.ID] = item{raw: raw, val: r}
	}
	return out, nil
}

func observations(p string, data []byte) (map[string]item, error) {
	out := map[string]item{}
	if data == nil {
		return out, nil
	}
	obs, err := memory.ParseObservations(p, data)
	if err != nil {
		return nil, err
	}
	for i := range obs {
		o := &obs[i]
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		out[o.ID] = item{raw: raw, val: o}
	}
	return out, nil
}

func diffItems(then, now map[string]item, issue int, detail func(a, b any) string) []ItemChange {
	ids := map[string]bool{}
	for id := range then {
		ids[id] = true
	}
	for id := range now {
		ids[id] = true
	}
	var out []ItemChange
	for _, id := range sortedKeys(ids) {
		a, inThen := then[id]
		b, inNow := now[id]
		switch {
		case !inThen:
			out = append(out, ItemChange{ID: id, Issue: issue, Change: Added})
		case !inNow:
			out = append(out, ItemChange{ID: id, Issue: issue, Change: Removed})
		case !bytes.Equal(a.raw, b.raw):
			out = append(out, ItemChange{ID: id, Issue: issue, Change: Changed, Detail: detail(a.val, b.val)})
		}
	}
	return out
}

func recordDetail(a, b any) string {
	x, y := a.(*ledger.Record), b.(*ledger.Record)
	var parts []string
	if x.Round != y.Round {
		parts = append(parts, fmt.Sprintf("round %d -> %d", x.Round, y.Round))
	}
	if x.Status != y.Status {
		parts = append(parts, fmt.Sprintf("status %s -> %s", x.Status, y.Status))
	}
	if n := len(y.Thread) - len(x.Thread); n != 0 {
		parts = append(parts, fmt.Sprintf("%+d thread entries", n))
	}
	if len(parts) == 0 {
		parts = append(parts, "fields changed")
	}
	return strings.Join(parts, ", ")
}

func observationDetail(a, b any) string {
	x, y := a.(*memory.Observation), b.(*memory.Observation)
	var parts []string
	if x.Content != y.Content {
		parts = append(parts, "content")
	}
	if x.Summary != y.Summary {
		parts = append(parts, "summary")
	}
	if x.RecallCount != y.RecallCount {
		parts = append(parts, fmt.Sprintf("recall count %d -> %d", x.RecallCount, y.RecallCount))
	}
	if len(parts) == 0 {
		return "fields changed"
	}
	return strings.Join(parts, ", ") + " changed"
}
