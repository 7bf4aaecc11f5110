package artifact

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
)

// Merge merges three versions of one ledger (nil: absent on that side):
// the union of the artifacts of every side, the base's included, less
// those a tombstone of any side names. Two versions of one artifact give
// the one updated later (a tie: the larger encoding, so the result does
// not depend on the order of the sides), with the notices of both, so the
// monitor never announces one change twice. Nothing is removed by
// absence. A side that does not parse is an error (the caller keeps
// git's conflict).
func Merge(path string, base, ours, theirs []byte) ([]byte, error) {
	var files []*File
	issue := 0
	for _, side := range [][]byte{base, ours, theirs} {
		if side == nil {
			continue
		}
		f, err := Parse(path, side, 0)
		if err != nil {
			return nil, err
		}
		if f.IssueNumber != 0 {
			issue = f.IssueNumber
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, nil
	}
	out := &File{IssueNumber: issue, Artifacts: []Artifact{}}
	var sets []tombstone.Set
	byID := map[string]Artifact{}
	var order []string
	for _, f := range files {
		sets = append(sets, f.Tombstones)
		for _, a := range f.Artifacts {
			old, ok := byID[a.ID]
			if !ok {
				order = append(order, a.ID)
				byID[a.ID] = a
				continue
			}
			win, lose := old, a
			if newer(a, old) {
				win, lose = a, old
			}
			win.Notified = unionNotices(win.Notified, lose.Notified)
			if len(win.Notified) != len(old.Notified) || win.Hash != old.Hash {
				win.Seal()
			}
			byID[a.ID] = win
		}
	}
	out.Tombstones = tombstone.Union(sets...)
	for _, id := range order {
		if !out.Tombstones.Has(TombstoneKind, id) {
			out.Artifacts = append(out.Artifacts, byID[id])
		}
	}
	out.sortArtifacts()
	data, err := jsonfile.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode merged %s: %w", path, err)
	}
	return data, nil
}

func newer(a, b Artifact) bool {
	if a.Updated != b.Updated {
		return a.Updated > b.Updated
	}
	ea, _ := json.Marshal(a)
	eb, _ := json.Marshal(b)
	return string(ea) > string(eb)
}

func unionNotices(a, b []Notice) []Notice {
	out := slices.Clone(a)
	for _, n := range b {
		if !slices.ContainsFunc(out, func(m Notice) bool { return m.ID == n.ID && m.Blob == n.Blob }) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(x, y Notice) int {
		if x.At != y.At {
			if x.At < y.At {
				return -1
			}
			return 1
		}
		if x.ID+x.Blob < y.ID+y.Blob {
			return -1
		}
		return 1
	})
	return out
}

// Marshal lays a ledger out as every agentx write does.
func Marshal(f *File) ([]byte, error) {
	if f.Artifacts == nil {
		f.Artifacts = []Artifact{}
	}
	return jsonfile.Marshal(f)
}
