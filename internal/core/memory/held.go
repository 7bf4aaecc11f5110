package memory

import "github.com/agentx-dev/agentx/internal/core/tombstone"

// Held reports which of ids the issue's file holds, or buried on purpose
// (removed, compacted, archived: its tombstones): an observation whose id
// a writer derives (a settled clarification's decision) is then stored
// once, and a deliberate removal is not undone by the next catch-up. It
// reads the file without its lock; StoreReport checks ids again under it.
func (s *Store) Held(issue int, ids []string) (map[string]bool, error) {
	f, err := s.readIssue(issue)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	held := map[string]bool{}
	for _, o := range f.Observations {
		if want[o.ID] {
			held[o.ID] = true
		}
	}
	dead, err := f.Tombstones(s.IssuePath(issue))
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if dead.Has(tombstone.Observation, id) {
			held[id] = true
		}
	}
	return held, nil
}
