package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// Held reports which of ids the issue's file holds, or buried on purpose
// (removed, compacted, archived: its tombstones): an observation whose id
// a writer derives (a settled clarification's decision) is then stored
// once, and a deliberate removal is not undone by the next catch-up. It
// reads the file without its lock; StoreReport checks ids again under it.
//
// `hook start` asks on every session, so the common answer (all held) is
// found without decoding the file: each id appearing as a JSON string in
// its bytes is held or buried (ids are [a-z0-9-], never escaped; an id
// quoted inside some text would have to be typed there by hand). Only
// when one is missing is the file decoded, for the exact answer.
func (s *Store) Held(issue int, ids []string) (map[string]bool, error) {
	path := s.IssuePath(issue)
	data, err := atomicfile.ReadRegular(path, atomicfile.StateLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if held := quotedIDs(data, ids); len(held) == len(ids) {
		return held, nil
	}
	f, err := ParseIssueFile(path, data)
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
	dead, err := f.Tombstones(path)
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

// quotedIDs returns those of ids that appear in data as JSON strings, in
// one pass over the strings that start like an observation id.
func quotedIDs(data []byte, ids []string) map[string]bool {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	held := make(map[string]bool, len(ids))
	needle := []byte(`"obs-`)
	for rest := data; ; {
		i := bytes.Index(rest, needle)
		if i < 0 {
			return held
		}
		rest = rest[i+1:]
		end := bytes.IndexByte(rest, '"')
		if end < 0 {
			return held
		}
		if id := rest[:end]; want[string(id)] {
			held[string(id)] = true
		}
		rest = rest[end+1:]
	}
}
