package verify

import (
	"encoding/binary"
	"hash/maphash"

	"github.com/agentx-dev/agentx/internal/core/lazy"
)

// idKey is an id as verify keeps it across the whole store: two 64-bit
// hashes of it under seeds drawn for each process, 16 bytes however long
// the id. Two ids share a key with a chance of about n²/2¹²⁹ among n ids
// (10⁻²⁷ at a million), and the seeds are unknown to whoever writes the
// files, so no id can be made to share another's on purpose; a map of a
// million id strings was a quarter of verify's memory (issue 35).
type idKey [16]byte

// keySeeds are drawn on first use, not at process start (every command
// links verify).
var keySeeds = lazy.Value[[2]maphash.Seed]{New: func() [2]maphash.Seed {
	return [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
}}

func keyOf(id string) idKey {
	var k idKey
	seeds := keySeeds.Get()
	binary.LittleEndian.PutUint64(k[:8], maphash.String(seeds[0], id))
	binary.LittleEndian.PutUint64(k[8:], maphash.String(seeds[1], id))
	return k
}

// keyTable finds rows by key: an open-addressed table of row numbers (4
// bytes a slot, at most half full), the keys being in the rows.
type keyTable struct {
	slots []int32 // row+1; 0 is empty
	n     int
}

// find is the row whose key is k.
func (t *keyTable) find(k idKey, keyAt func(int32) *idKey) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for at := binary.LittleEndian.Uint64(k[:8]) & mask; ; at = (at + 1) & mask {
		s := t.slots[at]
		if s == 0 {
			return 0, false
		}
		if *keyAt(s - 1) == k {
			return s - 1, true
		}
	}
}

// insert records that row i has key k, which no row had.
func (t *keyTable) insert(k idKey, i int32, keyAt func(int32) *idKey) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow(keyAt)
	}
	t.put(k, i)
	t.n++
}

func (t *keyTable) put(k idKey, i int32) {
	mask := uint64(len(t.slots) - 1)
	at := binary.LittleEndian.Uint64(k[:8]) & mask
	for t.slots[at] != 0 {
		at = (at + 1) & mask
	}
	t.slots[at] = i + 1
}

func (t *keyTable) grow(keyAt func(int32) *idKey) {
	old := t.slots
	t.slots = make([]int32, max(1024, 2*len(old)))
	for _, s := range old {
		if s != 0 {
			t.put(*keyAt(s - 1), s-1)
		}
	}
}

// chunked is a list of fixed-size rows kept in chunks: it grows without
// copying what it holds, so it never needs twice its size to add one.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkBits = 12

func (c *chunked[T]) add(v T) int32 {
	if c.n>>chunkBits == len(c.chunks) {
		c.chunks = append(c.chunks, make([]T, 0, 1<<chunkBits))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
	return int32(c.n - 1)
}

func (c *chunked[T]) at(i int32) *T { return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (c *chunked[T]) len() int { return c.n }
