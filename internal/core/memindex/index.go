package memindex

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"sync"
)

// Stamp is the fingerprint of the manifest an index was built from: the
// generation and checksum the store's writer records in the manifest, and
// the manifest's size. An index whose stamp differs from the manifest's is
// stale and is rebuilt; file modification times play no part.
type Stamp struct {
	Generation uint64
	CRC        uint32
	Size       int64
}

// Ref locates a document's row in the manifest file (byte offset and
// length of its entry object), so a search prints rows without parsing the
// whole manifest.
type Ref struct {
	Off uint32
	Len uint32
}

// Doc is the part of an observation the index keeps besides its terms.
type Doc struct {
	Issue    int
	Time     int64 // epoch ms
	Agent    string
	Category string
	Tokens   int
	Ref      Ref
}

const (
	magic      = "AXMIDX01"
	headerSize = 8 + 4 + 4 + 8 + 4 + 4 + 8 + 4 + 4 + 8 + 8*(nSections+1) + 4
	nSections  = 16
)

const (
	secIssue = iota
	secTime
	secDocLen
	secAgent
	secCat
	secTokens
	secRefOff
	secRefLen
	secAgentTab
	secCatTab
	secTermOff
	secTermBlob
	secPostOff
	secDF
	secLast
	secPost
)

var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Checksum is the CRC-32C the store uses for manifest fingerprints.
func Checksum(data []byte) uint32 { return crc32.Checksum(data, castagnoli()) }

// ErrFormat reports an index file that is not one of ours or is damaged;
// callers rebuild it.
var ErrFormat = errors.New("search index is damaged or of another version")

// Index is a read-only view of an encoded index.
type Index struct {
	data     []byte
	stamp    Stamp
	n        int
	nTerms   int
	totalLen uint64
	sum      uint32 // the header's checksum of the body
	sec      [nSections + 1]uint64
	agents   []string
	cats     []string
}

// Decode validates data (header and section bounds, and with verify the
// checksum of the whole body) and returns a view over it; data is not
// copied. Without verify every access is still bounds-checked, so a damaged
// file gives wrong rows at worst, never a crash; the search path skips the
// checksum to avoid touching every page, writers verify.
func Decode(data []byte, verify bool) (*Index, error) {
	if len(data) < headerSize || string(data[:8]) != magic {
		return nil, ErrFormat
	}
	le := binary.LittleEndian
	p := 8
	u32 := func() uint32 { v := le.Uint32(data[p:]); p += 4; return v }
	u64 := func() uint64 { v := le.Uint64(data[p:]); p += 8; return v }
	if u32() != 1 || u32() != nSections {
		return nil, ErrFormat
	}
	ix := &Index{data: data}
	ix.stamp.Generation = u64()
	ix.stamp.CRC = u32()
	u32()
	ix.stamp.Size = int64(u64())
	ix.n = int(u32())
	ix.nTerms = int(u32())
	ix.totalLen = u64()
	for i := range ix.sec {
		ix.sec[i] = u64()
	}
	sum := u32()
	ix.sum = sum
	if ix.sec[0] != headerSize || ix.sec[nSections] != uint64(len(data)) {
		return nil, ErrFormat
	}
	for i := 0; i < nSections; i++ {
		if ix.sec[i] > ix.sec[i+1] {
			return nil, ErrFormat
		}
	}
	if verify && Checksum(data[headerSize:]) != sum {
		return nil, ErrFormat
	}
	n, t := uint64(ix.n), uint64(ix.nTerms)
	// An array, not a map: Decode runs once a search process.
	for _, w := range [...]struct {
		sec  int
		size uint64
	}{{secIssue, 4 * n}, {secTime, 8 * n}, {secDocLen, 2 * n}, {secAgent, 2 * n}, {secCat, n},
		{secTokens, 4 * n}, {secRefOff, 4 * n}, {secRefLen, 4 * n}, {secTermOff, 4 * (t + 1)}, {secPostOff, 4 * (t + 1)},
		{secDF, 4 * t}, {secLast, 4 * t}} {
		if ix.size(w.sec) != w.size {
			return nil, ErrFormat
		}
	}
	var err error
	if ix.agents, err = decodeStrings(ix.section(secAgentTab)); err != nil {
		return nil, err
	}
	if ix.cats, err = decodeStrings(ix.section(secCatTab)); err != nil {
		return nil, err
	}
	if uint64(ix.u32(secTermOff, ix.nTerms)) != ix.size(secTermBlob) || uint64(ix.u32(secPostOff, ix.nTerms)) != ix.size(secPost) {
		return nil, ErrFormat
	}
	if !verify {
		// The read path stops here: what follows is linear in the index,
		// and every accessor a search uses checks its own bounds (term,
		// postings, agent and category), so a damaged byte a search
		// touches gives no row or a row the store's check refuses, and one
		// it does not touch costs nothing. Opening is O(1) in the store.
		return ix, nil
	}
	for i := 0; i < ix.nTerms; i++ {
		if ix.u32(secTermOff, i) > ix.u32(secTermOff, i+1) || ix.u32(secPostOff, i) > ix.u32(secPostOff, i+1) {
			return nil, ErrFormat
		}
	}
	for i := 0; i < ix.n; i++ {
		if int(ix.u16(secAgent, i)) >= len(ix.agents) || int(ix.data[ix.sec[secCat]+uint64(i)]) >= len(ix.cats) {
			return nil, ErrFormat
		}
	}
	return ix, nil
}

func (ix *Index) size(s int) uint64    { return ix.sec[s+1] - ix.sec[s] }
func (ix *Index) section(s int) []byte { return ix.data[ix.sec[s]:ix.sec[s+1]] }
func (ix *Index) u32(s, i int) uint32 {
	return binary.LittleEndian.Uint32(ix.data[ix.sec[s]+4*uint64(i):])
}
func (ix *Index) u16(s, i int) uint16 {
	return binary.LittleEndian.Uint16(ix.data[ix.sec[s]+2*uint64(i):])
}
func (ix *Index) time(i int) int64 {
	return int64(binary.LittleEndian.Uint64(ix.data[ix.sec[secTime]+8*uint64(i):]))
}

// term and postings check their offsets (Decode without verify does not
// walk them): out of order or out of bounds gives nothing, never a panic.
func (ix *Index) term(t int) []byte {
	lo, hi := uint64(ix.u32(secTermOff, t)), uint64(ix.u32(secTermOff, t+1))
	if lo > hi || hi > ix.size(secTermBlob) {
		return nil
	}
	return ix.data[ix.sec[secTermBlob]+lo : ix.sec[secTermBlob]+hi]
}
func (ix *Index) postings(t int) []byte {
	lo, hi := uint64(ix.u32(secPostOff, t)), uint64(ix.u32(secPostOff, t+1))
	if lo > hi || hi > ix.size(secPost) {
		return nil
	}
	return ix.data[ix.sec[secPost]+lo : ix.sec[secPost]+hi]
}
func (ix *Index) catOf(i int) string {
	if c := int(ix.data[ix.sec[secCat]+uint64(i)]); c < len(ix.cats) {
		return ix.cats[c]
	}
	return ""
}
func (ix *Index) agentOf(i int) string {
	if a := int(ix.u16(secAgent, i)); a < len(ix.agents) {
		return ix.agents[a]
	}
	return ""
}
func (ix *Index) docLen(i int) float64 { return float64(ix.u16(secDocLen, i)) }
func (ix *Index) refOf(i int) Ref      { return Ref{Off: ix.u32(secRefOff, i), Len: ix.u32(secRefLen, i)} }
func (ix *Index) issueOf(i int) int    { return int(ix.u32(secIssue, i)) }

// Stamp is the manifest fingerprint the index was built from.
func (ix *Index) Stamp() Stamp { return ix.stamp }

// Sum is the checksum of the body the header carries (checked by Decode
// only with verify): with the stamp, what tells two encodings apart
// without reading them.
func (ix *Index) Sum() uint32 { return ix.sum }

// Len is the number of documents.
func (ix *Index) Len() int { return ix.n }

// Doc returns document i.
func (ix *Index) Doc(i int) Doc {
	return Doc{Issue: ix.issueOf(i), Time: ix.time(i), Agent: ix.agentOf(i), Category: ix.catOf(i),
		Tokens: int(ix.u32(secTokens, i)), Ref: ix.refOf(i)}
}

// findTerm returns the term's number, or -1.
func (ix *Index) findTerm(term string) int {
	lo, hi := 0, ix.nTerms
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if string(ix.term(m)) < term {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < ix.nTerms && string(ix.term(lo)) == term {
		return lo
	}
	return -1
}

// eachPosting decodes a postings list: uvarint doc deltas, each followed
// by the term frequency (one byte, capped at 255).
func eachPosting(p []byte, n int, fn func(doc int, tf int)) error {
	doc := -1
	for len(p) > 0 {
		d, k := binary.Uvarint(p)
		if k <= 0 || len(p) < k+1 {
			return ErrFormat
		}
		doc += int(d)
		if doc < 0 || doc >= n || (d == 0 && doc != 0) {
			return ErrFormat
		}
		fn(doc, int(p[k]))
		p = p[k+1:]
	}
	return nil
}

func decodeStrings(b []byte) ([]string, error) {
	var out []string
	for len(b) > 0 {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return nil, ErrFormat
		}
		out = append(out, string(b[k:k+int(l)]))
		b = b[k+int(l):]
	}
	if len(out) > math.MaxUint16 {
		return nil, ErrFormat
	}
	return out, nil
}
