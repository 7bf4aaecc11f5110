package memory

import (
	"encoding/json"
	"slices"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// Tombstones returns the file's tombstones: the observations removed from
// it on purpose (package tombstone). A malformed list is an error.
func (f *IssueFile) Tombstones(where string) (tombstone.Set, error) {
	return tombstone.FromExtra(where, f.Extra)
}

// SetTombstones replaces the file's tombstones.
func (f *IssueFile) SetTombstones(s tombstone.Set) { f.Extra = tombstone.ToExtra(f.Extra, s) }

// tombstoneOf is the tombstone a removal of o leaves (into: the summary
// that took its text, if any).
func (s *Store) tombstoneOf(o Observation, reason, into string) tombstone.Tombstone {
	hash, _ := o.StoredHash()
	by := s.Actor
	if by == "" {
		by = "cli"
	}
	return tombstone.Tombstone{Kind: tombstone.Observation, ID: o.ID, Reason: reason, Into: into,
		At: clock.Format(s.now()), By: by, Hash: hash}
}

// bury adds tombstones to f.
func (s *Store) bury(f *IssueFile, dead ...tombstone.Tombstone) error {
	if len(dead) == 0 {
		return nil
	}
	have, err := f.Tombstones(s.IssuePath(f.IssueNumber))
	if err != nil {
		return err
	}
	f.SetTombstones(have.Add(dead...))
	return nil
}

// summaryOf is the id of the observation among kept whose compactedFrom
// names id ("" when none does).
func summaryOf(kept []Observation, id string) string {
	for i := range kept {
		v, ok := kept[i].extra(FieldCompactedFrom)
		if !ok {
			continue
		}
		var from []string
		if json.Unmarshal(v, &from) == nil && slices.Contains(from, id) {
			return kept[i].ID
		}
	}
	return ""
}
