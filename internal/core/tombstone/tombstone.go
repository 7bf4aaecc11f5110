// Package tombstone owns the record of a deliberate removal from the shared
// state. Removal is an act, never an inference: an observation (or a
// record, or a thread entry) leaves a state file only through a command
// that says so (`memory remove`, compaction), and that command leaves a
// tombstone in the same file, under the key Key. Tombstones travel with
// the file (on the state branch, through the git merge driver, in
// checkpoints) and only grow: the merge takes the union of every side's
// tombstones and drops exactly the things they name. Anything else missing
// on one side is "not here yet" and is kept from the other side.
//
// Tombstones sit among a file's extra keys, so every reader and writer of
// the ledger and memory formats (ours, and the old tools, which keep keys
// they do not know) carries them along without knowing them.
package tombstone

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// Key is the file-level member holding a file's tombstones.
const Key = "agentxTombstones"

// Kinds of things a tombstone removes.
const (
	Observation = "observation"
	Record      = "record"
)

// Tombstone says that one thing was removed on purpose.
type Tombstone struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// Reason is why: "removed" (`memory remove`), "compacted" (its text
	// moved into a summary observation and the original to the archive).
	Reason string `json:"reason"`
	// Into names where the content went, when it went somewhere (the
	// summary observation of a compaction).
	Into string `json:"into,omitempty"`
	At   string `json:"at"`
	By   string `json:"by,omitempty"`
	// Hash is the removed thing's content hash (agentxHash), when it had
	// one, so an audit can tell what exactly was removed.
	Hash string `json:"hash,omitempty"`
	// Revived marks the undoing of a removal (a checkpoint restore that
	// brought the thing back): of the entries for one thing, the latest
	// decides, so a revival outlives the tombstones merged in from other
	// copies, and a later removal outlives the revival.
	Revived bool `json:"revived,omitempty"`
}

// Set is a file's tombstones, at most one per kind and id, sorted by
// kind, then id.
type Set []Tombstone

func key(kind, id string) string { return kind + "\x00" + id }

// Has reports whether the thing of kind and id was removed (and not
// revived since).
func (s Set) Has(kind, id string) bool {
	i := sort.Search(len(s), func(i int) bool { return key(s[i].Kind, s[i].ID) >= key(kind, id) })
	return i < len(s) && s[i].Kind == kind && s[i].ID == id && !s[i].Revived
}

// Union is the latest entry of each thing across the sets (by At; a tie
// goes to the smaller encoding, so the result does not depend on the
// order of the arguments).
func Union(sets ...Set) Set {
	byKey := map[string]Tombstone{}
	for _, s := range sets {
		for _, t := range s {
			k := key(t.Kind, t.ID)
			if old, ok := byKey[k]; ok && !later(t, old) {
				continue
			}
			byKey[k] = t
		}
	}
	out := make(Set, 0, len(byKey))
	for _, t := range byKey {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i].Kind, out[i].ID) < key(out[j].Kind, out[j].ID) })
	return out
}

// later orders two entries of one thing: the later act, then the smaller
// encoding, so a union is symmetric.
func later(a, b Tombstone) bool {
	if a.At != b.At {
		return a.At > b.At
	}
	ea, _ := json.Marshal(a)
	eb, _ := json.Marshal(b)
	return string(ea) < string(eb)
}

// Add returns s with t in it (the latest entry of a thing stands).
func (s Set) Add(t ...Tombstone) Set { return Union(s, Set(t)) }

// FromExtra reads the tombstones among a file's extra keys; where names
// the file in errors.
func FromExtra(where string, extra []jsonfile.Field) (Set, error) {
	for _, f := range extra {
		if f.Key != Key {
			continue
		}
		if jsonfile.IsNull(f.Value) {
			return nil, nil
		}
		var s []Tombstone
		if err := json.Unmarshal(f.Value, &s); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", where, Key, err)
		}
		for _, t := range s {
			if t.Kind == "" || t.ID == "" {
				return nil, fmt.Errorf("%s: %s: a tombstone without kind or id", where, Key)
			}
		}
		return Union(s), nil
	}
	return nil, nil
}

// Without is extra with the tombstone key left out.
func Without(extra []jsonfile.Field) []jsonfile.Field {
	var out []jsonfile.Field
	for _, f := range extra {
		if f.Key != Key {
			out = append(out, f)
		}
	}
	return out
}

// ToExtra is extra with its tombstones replaced by s (appended as the
// last key when it had none; removed when s is empty).
func ToExtra(extra []jsonfile.Field, s Set) []jsonfile.Field {
	if len(s) == 0 {
		return Without(extra)
	}
	raw, err := json.Marshal([]Tombstone(s))
	if err != nil { // plain strings: cannot fail
		panic(err)
	}
	out := make([]jsonfile.Field, 0, len(extra)+1)
	placed := false
	for _, f := range extra {
		if f.Key == Key {
			if !placed {
				out = append(out, jsonfile.Field{Key: Key, Value: raw})
				placed = true
			}
			continue
		}
		out = append(out, f)
	}
	if !placed {
		out = append(out, jsonfile.Field{Key: Key, Value: raw})
	}
	return out
}
