package verify

import (
	"encoding/hex"
	"encoding/json"
	"hash/maphash"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// obsRow is what verify keeps of one observation it read, for the
// cross-checks (manifest, archive, the trail's anchors): a fixed-size row
// but for its id and time. A million observations held whole (their text,
// summaries, extra fields) were 2.5 GB (issue 35); as rows they are about
// 225 bytes each (rows_test.go).
type obsRow struct {
	id string
	ts string
	// meta is a keyed hash of what a manifest row repeats besides the
	// id, issue, tokens and time (agent, category, summary): the row
	// differs when the hashes do.
	meta   uint64
	tokens int
	issue  int
	file   int32 // index in obsSet.paths
	// hash is the stored content hash when it has the form agentx
	// writes ("sha256:" and 64 lowercase hex digits); one of another
	// form is kept whole in obsSet.oddHash.
	hash   [32]byte
	hashed bool
}

// obsSet is the observations read, in the order they were first found.
type obsSet struct {
	rows  []obsRow
	at    map[string]int32
	paths []string
	// oddHash are the stored hashes not of agentx's form, by row.
	oddHash map[int32]string
}

func newObsSet() *obsSet {
	return &obsSet{at: map[string]int32{}, oddHash: map[int32]string{}}
}

// metaSeed keys the rows' meta hashes: one per process, so a manifest row
// cannot be made to collide on purpose.
var metaSeed = maphash.MakeSeed()

func metaHash(agent string, category memory.Category, summary string) uint64 {
	var h maphash.Hash
	h.SetSeed(metaSeed)
	_, _ = h.WriteString(agent)
	_ = h.WriteByte(0)
	_, _ = h.WriteString(string(category))
	_ = h.WriteByte(0)
	_, _ = h.WriteString(summary)
	return h.Sum64()
}

// lookup is the row of id (ok false: none).
func (s *obsSet) lookup(id string) (int32, bool) {
	if s == nil {
		return 0, false
	}
	i, ok := s.at[id]
	return i, ok
}

// has reports whether id was read.
func (s *obsSet) has(id string) bool {
	_, ok := s.lookup(id)
	return ok
}

// path is the file row i was read from.
func (s *obsSet) path(i int32) string { return s.paths[s.rows[i].file] }

// fileIndex is path's index in s.paths, adding it when it is not the last
// one (files are read one after another).
func (s *obsSet) fileIndex(path string) int32 {
	if n := len(s.paths); n > 0 && s.paths[n-1] == path {
		return int32(n - 1)
	}
	s.paths = append(s.paths, path)
	return int32(len(s.paths) - 1)
}

// add records o, read from path.
func (s *obsSet) add(path string, o *memory.Observation) int32 {
	r := obsRow{id: o.ID, ts: o.Timestamp, meta: metaHash(o.Agent, o.Category, o.Summary),
		tokens: o.Tokens, issue: o.IssueNumber, file: s.fileIndex(path)}
	i := int32(len(s.rows))
	if h, ok := o.StoredHash(); ok {
		r.hashed = true
		hexed, isHex := strings.CutPrefix(h, "sha256:")
		if !isHex || !lowerHex64(hexed) {
			r.hash = [32]byte{}
			s.oddHash[i] = h
		} else {
			_, _ = hex.Decode(r.hash[:], []byte(hexed)) // checked: 64 hex digits
		}
	}
	s.rows = append(s.rows, r)
	s.at[o.ID] = i
	return i
}

// storedHash is row i's stored content hash as the file had it.
func (s *obsSet) storedHash(i int32) string {
	if h, ok := s.oddHash[i]; ok {
		return h
	}
	return "sha256:" + hex.EncodeToString(s.rows[i].hash[:])
}

// observation is row i as the anchoring rule reads an observation: its
// id, time and stored hash.
func (s *obsSet) observation(i int32) memory.Observation {
	r := &s.rows[i]
	o := memory.Observation{ID: r.id, IssueNumber: r.issue, Timestamp: r.ts}
	if r.hashed {
		raw, _ := json.Marshal(s.storedHash(i)) // a string always marshals
		o.Extra = []jsonfile.Field{{Key: contenthash.Key, Value: raw}}
	}
	return o
}

// lowerHex64 reports whether h is 64 lowercase hex digits (the form that
// round-trips through [32]byte).
func lowerHex64(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
