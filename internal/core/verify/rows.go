package verify

import (
	"encoding/binary"
	"hash/maphash"
	"math"

	"github.com/agentx-dev/agentx/internal/core/lazy"
	"github.com/agentx-dev/agentx/internal/core/memory"
)

// obsRow is what verify keeps of one observation it read, for the
// cross-checks (duplicates, manifest, archive, the trail's anchors): a
// fixed-size row with no pointer in it. Its id is kept as its key, its
// manifest fields as one keyed hash; what a finding needs besides (the id
// itself) is read again from the file in the rare case there is one. A
// million observations held whole were 2.5 GB, as rows of strings 217 MB
// (issue 35); as these rows 32 bytes each (rows_test.go).
type obsRow struct {
	key idKey
	// fp is a keyed hash of what a manifest row repeats besides the id
	// and issue (tokens, time, agent, category, summary): the row
	// differs when the hashes do.
	fp uint64
	// issue is the observation's issue number; one outside int32 is
	// bigIssue here and kept in obsSet.big.
	issue int32
	file  int32 // index in obsSet.paths
}

const bigIssue = math.MinInt32

// issueSum is what the observations of one issue number add up to, for
// the manifest's totals.
type issueSum struct{ n, tokens int }

// obsSet is the observations read, in the order they were first found.
type obsSet struct {
	rows  chunked[obsRow]
	index keyTable
	paths []string
	// sums are the rows' counts and tokens by issue number.
	sums map[int]issueSum
	// big are the issue numbers outside int32, by row.
	big map[int32]int
}

func newObsSet() *obsSet { return &obsSet{sums: map[int]issueSum{}, big: map[int32]int{}} }

// metaSeed keys the rows' hashes: one per process, so a manifest row
// cannot be made to collide on purpose.
var metaSeed = lazy.Value[maphash.Seed]{New: maphash.MakeSeed}

// manifestFP is the hash of what a manifest row says of an observation
// besides its id and issue. Each field is preceded by its length, so no
// two different rows write the same bytes.
func manifestFP(tokens int, ts, agent string, category memory.Category, summary string) uint64 {
	var h maphash.Hash
	h.SetSeed(metaSeed.Get())
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(tokens))
	_, _ = h.Write(b[:])
	for _, s := range []string{ts, agent, string(category), summary} {
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		_, _ = h.Write(b[:])
		_, _ = h.WriteString(s)
	}
	return h.Sum64()
}

// len counts the rows.
func (s *obsSet) len() int { return s.rows.len() }

// lookup is the row of id (ok false: none).
func (s *obsSet) lookup(id string) (int32, bool) {
	if s == nil {
		return 0, false
	}
	return s.lookupKey(keyOf(id))
}

func (s *obsSet) lookupKey(k idKey) (int32, bool) {
	if s == nil {
		return 0, false
	}
	return s.index.find(k, s.keyAt)
}

func (s *obsSet) keyAt(i int32) *idKey { return &s.rows.at(i).key }

// has reports whether id was read.
func (s *obsSet) has(id string) bool {
	_, ok := s.lookup(id)
	return ok
}

// row is row i.
func (s *obsSet) row(i int32) *obsRow { return s.rows.at(i) }

// issue is row i's issue number.
func (s *obsSet) issue(i int32) int {
	if n := s.rows.at(i).issue; n != bigIssue {
		return int(n)
	}
	return s.big[i]
}

// path is the file row i was read from.
func (s *obsSet) path(i int32) string { return s.paths[s.rows.at(i).file] }

// fileIndex is path's index in s.paths, adding it when it is not the last
// one (files are read one after another).
func (s *obsSet) fileIndex(path string) int32 {
	if n := len(s.paths); n > 0 && s.paths[n-1] == path {
		return int32(n - 1)
	}
	s.paths = append(s.paths, path)
	return int32(len(s.paths) - 1)
}

// add records o, read from path, whose id is not in s yet.
func (s *obsSet) add(path string, o *memory.Observation) int32 {
	r := obsRow{key: keyOf(o.ID), fp: manifestFP(o.Tokens, o.Timestamp, o.Agent, o.Category, o.Summary),
		issue: bigIssue, file: s.fileIndex(path)}
	if o.IssueNumber > math.MinInt32 && o.IssueNumber <= math.MaxInt32 {
		r.issue = int32(o.IssueNumber)
	}
	i := s.rows.add(r)
	if r.issue == bigIssue {
		s.big[i] = o.IssueNumber
	}
	s.index.insert(r.key, i, s.keyAt)
	sum := s.sums[o.IssueNumber]
	sum.n++
	sum.tokens += o.Tokens
	s.sums[o.IssueNumber] = sum
	return i
}
