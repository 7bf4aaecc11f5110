package verify

import (
	"encoding/hex"
	"math"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/memanchor"
)

// anchorSet is every observation's anchor as the trail's reading left it
// (memanchor.View's Obs, kept by View.Keep): a fixed-size row per id with
// no pointer in it, the trail line's time kept once per line. What a
// finding needs besides (the id itself) is read again from the trail in
// the rare case there is one. A million anchors in a map of strings were
// 277 MB (issue 35); as these rows about 60 bytes each.
type anchorSet struct {
	rows  chunked[anchorRow]
	index keyTable
	// odd are the hashes not of agentx's form ("sha256:" and 64
	// lowercase hex digits), big the issues outside int32, by row.
	odd map[int32]string
	big map[int32]int
	// times are the times of the trail's lines, by their position
	// (memanchor.Key.Seq).
	times lineTimes
}

type anchorRow struct {
	key idKey
	// hash is the first half of the stored SHA-256 (agentx's form): what
	// tells two contents apart as surely as the whole (2¹²⁸ tries to
	// match one on purpose), and what a message shows of it.
	hash  [16]byte
	seq   int64
	issue int32
	flags uint8
}

const (
	anchorRemoved uint8 = 1 << iota // the line removed it (Anchor.Hash "")
	anchorOdd                       // its hash is in odd
	anchorBig                       // its issue is in big
)

func newAnchorSet() *anchorSet {
	return &anchorSet{odd: map[int32]string{}, big: map[int32]int{}}
}

func (s *anchorSet) keyAt(i int32) *idKey { return &s.rows.at(i).key }

// lookup is the row of the anchor of id.
func (s *anchorSet) lookup(id string) (int32, bool) { return s.index.find(keyOf(id), s.keyAt) }

// keep is View.Keep: a kept unless the anchor held for id is later.
func (s *anchorSet) keep(id string, a memanchor.Anchor) bool {
	k := keyOf(id)
	i, had := s.index.find(k, s.keyAt)
	if had {
		old := s.rows.at(i)
		if s.after(old.seq, a.At) {
			return false
		}
	} else {
		i = s.rows.add(anchorRow{key: k})
		s.index.insert(k, i, s.keyAt)
	}
	r := s.rows.at(i)
	r.seq, r.flags, r.hash = a.At.Seq, 0, [16]byte{}
	delete(s.odd, i)
	delete(s.big, i)
	switch hexed, ok := strings.CutPrefix(a.Hash, "sha256:"); {
	case a.Hash == "":
		r.flags |= anchorRemoved
	case ok && lowerHex64(hexed):
		_, _ = hex.Decode(r.hash[:], []byte(hexed[:32])) // checked: hex digits
	default:
		r.flags |= anchorOdd
		s.odd[i] = a.Hash
	}
	if a.Issue >= math.MinInt32 && a.Issue <= math.MaxInt32 {
		r.issue = int32(a.Issue)
	} else {
		r.flags |= anchorBig
		s.big[i] = a.Issue
	}
	return true
}

// after reports whether the line at seq comes after at (Key.After).
func (s *anchorSet) after(seq int64, at memanchor.Key) bool {
	t := s.times.at(seq)
	if string(t) != at.Time {
		return string(t) > at.Time
	}
	return seq > at.Seq
}

// anchor is row i as the rule reads an anchor. Its Hash is the half kept
// ("sha256:" and 32 hex digits): the rule is only asked about an anchor
// whose hash is not the observation's (holds), and shows only its first
// digits.
func (s *anchorSet) anchor(i int32) memanchor.Anchor {
	r := s.rows.at(i)
	a := memanchor.Anchor{At: memanchor.Key{Time: string(s.times.at(r.seq)), Seq: r.seq}, Issue: int(r.issue)}
	switch {
	case r.flags&anchorRemoved != 0:
	case r.flags&anchorOdd != 0:
		a.Hash = s.odd[i]
	default:
		a.Hash = "sha256:" + hex.EncodeToString(r.hash[:])
	}
	if r.flags&anchorBig != 0 {
		a.Issue = s.big[i]
	}
	return a
}

// removed reports whether row i's line removed its observation.
func (s *anchorSet) removed(i int32) bool { return s.rows.at(i).flags&anchorRemoved != 0 }

// holds reports whether row i stored hash (not removed): the common case,
// told without making the anchor's strings.
func (s *anchorSet) holds(i int32, hash string) bool {
	r := s.rows.at(i)
	switch {
	case r.flags&anchorRemoved != 0:
		return false
	case r.flags&anchorOdd != 0:
		return s.odd[i] == hash
	}
	hexed, ok := strings.CutPrefix(hash, "sha256:")
	if !ok || !lowerHex64(hexed) {
		return false
	}
	var b [16]byte
	_, _ = hex.Decode(b[:], []byte(hexed[:32]))
	return b == r.hash
}

// lineTimes are the times of the trail's lines by position, in one
// buffer.
type lineTimes struct {
	buf []byte
	end []uint32 // where each line's time ends in buf
}

// set records the time of the line at seq (seq: one past the last set).
func (t *lineTimes) set(seq int64, time string) {
	for int64(len(t.end)) < seq {
		t.end = append(t.end, uint32(len(t.buf)))
	}
	t.buf = append(t.buf, time...)
	t.end = append(t.end, uint32(len(t.buf)))
}

func (t *lineTimes) at(seq int64) []byte {
	if seq < 0 || seq >= int64(len(t.end)) {
		return nil
	}
	from := uint32(0)
	if seq > 0 {
		from = t.end[seq-1]
	}
	return t.buf[from:t.end[seq]]
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
