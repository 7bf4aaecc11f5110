package memindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sort"
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
	want := map[int]uint64{secIssue: 4 * n, secTime: 8 * n, secDocLen: 2 * n, secAgent: 2 * n, secCat: n,
		secTokens: 4 * n, secRefOff: 4 * n, secRefLen: 4 * n, secTermOff: 4 * (t + 1), secPostOff: 4 * (t + 1),
		secDF: 4 * t, secLast: 4 * t}
	for s, size := range want {
		if ix.size(s) != size {
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

// plist is one term's postings while building.
type plist struct {
	raw  []byte
	df   uint32
	last int
}

func (pl *plist) add(doc, tf int) {
	delta := doc - pl.last
	if pl.df == 0 {
		delta = doc + 1
	}
	pl.raw = binary.AppendUvarint(pl.raw, uint64(delta))
	if tf > 255 {
		tf = 255
	}
	pl.raw = append(pl.raw, byte(tf))
	pl.df++
	pl.last = doc
}

// Builder assembles an index in memory.
type Builder struct {
	issue    []uint32
	time     []int64
	docLen   []uint16
	agent    []uint16
	cat      []uint8
	tokens   []uint32
	ref      []Ref
	agents   []string
	agentIdx map[string]uint16
	cats     []string
	catIdx   map[string]uint8
	terms    map[string]*plist
	totalLen uint64
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{agentIdx: map[string]uint16{}, catIdx: map[string]uint8{}, terms: map[string]*plist{}}
}

// Len is the number of documents added so far.
func (b *Builder) Len() int { return len(b.issue) }

// Add appends a document with its text (summary and content) and returns
// its number.
func (b *Builder) Add(d Doc, text ...string) int {
	return b.AddAnalysed(d, Analyze(text...))
}

// Analysed is a document's text analysed for the index: its distinct terms,
// sorted, with their frequencies, and its length in terms.
type Analysed struct {
	terms  []string
	tf     []int
	length int
}

// Analyze tokenizes a document's text. It is Add's slow half and needs no
// Builder, so documents can be analysed in parallel and added in order.
func Analyze(text ...string) Analysed {
	tf := map[string]int{}
	length := 0
	for _, s := range text {
		Tokenize(s, func(t string) { tf[t]++; length++ })
	}
	// Postings must be appended in doc order; terms are sorted so the
	// encoding is deterministic.
	t := Analysed{terms: make([]string, 0, len(tf)), tf: make([]int, len(tf)), length: length}
	for term := range tf {
		t.terms = append(t.terms, term)
	}
	sort.Strings(t.terms)
	for i, term := range t.terms {
		t.tf[i] = tf[term]
	}
	return t
}

// AddAnalysed appends a document analysed by Analyze and returns its number.
func (b *Builder) AddAnalysed(d Doc, t Analysed) int {
	doc := len(b.issue)
	b.issue = append(b.issue, uint32(d.Issue))
	b.time = append(b.time, d.Time)
	b.docLen = append(b.docLen, uint16(min(t.length, math.MaxUint16)))
	b.agent = append(b.agent, b.intern(d.Agent))
	b.cat = append(b.cat, b.internCat(d.Category))
	b.tokens = append(b.tokens, uint32(max(0, min(d.Tokens, math.MaxUint32))))
	b.ref = append(b.ref, d.Ref)
	b.totalLen += uint64(min(t.length, math.MaxUint16))
	for i, term := range t.terms {
		pl := b.terms[term]
		if pl == nil {
			pl = &plist{}
			b.terms[term] = pl
		}
		pl.add(doc, t.tf[i])
	}
	return doc
}

func (b *Builder) intern(a string) uint16 {
	if i, ok := b.agentIdx[a]; ok {
		return i
	}
	if len(b.agents) == math.MaxUint16 {
		a = "" // absurdly many agents: the filter degrades, search still works
		if i, ok := b.agentIdx[a]; ok {
			return i
		}
	}
	i := uint16(len(b.agents))
	b.agents = append(b.agents, a)
	b.agentIdx[a] = i
	return i
}

func (b *Builder) internCat(c string) uint8 {
	if i, ok := b.catIdx[c]; ok {
		return i
	}
	if len(b.cats) == math.MaxUint8 {
		c = ""
		if i, ok := b.catIdx[c]; ok {
			return i
		}
	}
	i := uint8(len(b.cats))
	b.cats = append(b.cats, c)
	b.catIdx[c] = i
	return i
}

// SetRef moves document doc's manifest row (after the manifest was
// re-rendered).
func (b *Builder) SetRef(doc int, r Ref) { b.ref[doc] = r }

// Builder returns a builder holding this index's documents for which keep
// returns true (keep nil: all), renumbered densely in their order. Postings
// of an index kept whole are copied without decoding, which is what makes
// appending a batch to a large store cheap.
func (ix *Index) Builder(keep func(doc int) bool) (*Builder, error) {
	b := NewBuilder()
	newID := make([]int, ix.n)
	for i := 0; i < ix.n; i++ {
		if keep != nil && !keep(i) {
			newID[i] = -1
			continue
		}
		newID[i] = len(b.issue)
		b.issue = append(b.issue, uint32(ix.issueOf(i)))
		b.time = append(b.time, ix.time(i))
		dl := ix.u16(secDocLen, i)
		b.docLen = append(b.docLen, dl)
		b.totalLen += uint64(dl)
		b.agent = append(b.agent, b.intern(ix.agentOf(i)))
		b.cat = append(b.cat, b.internCat(ix.catOf(i)))
		b.tokens = append(b.tokens, ix.u32(secTokens, i))
		b.ref = append(b.ref, ix.refOf(i))
	}
	b.terms = make(map[string]*plist, ix.nTerms)
	for t := 0; t < ix.nTerms; t++ {
		raw := ix.postings(t)
		var pl *plist
		if keep == nil {
			pl = &plist{raw: append([]byte(nil), raw...), df: ix.u32(secDF, t), last: int(ix.u32(secLast, t))}
		} else {
			pl = &plist{}
			err := eachPosting(raw, ix.n, func(doc, tf int) {
				if id := newID[doc]; id >= 0 {
					pl.add(id, tf)
				}
			})
			if err != nil {
				return nil, err
			}
			if pl.df == 0 {
				continue
			}
		}
		b.terms[string(ix.term(t))] = pl
	}
	return b, nil
}

// Encode renders the index with the manifest stamp it describes.
func (b *Builder) Encode(st Stamp) []byte {
	n := len(b.issue)
	terms := make([]string, 0, len(b.terms))
	for t := range b.terms {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	le := binary.LittleEndian
	var secs [nSections][]byte
	secs[secIssue] = make([]byte, 0, 4*n)
	for _, v := range b.issue {
		secs[secIssue] = le.AppendUint32(secs[secIssue], v)
	}
	secs[secTime] = make([]byte, 0, 8*n)
	for _, v := range b.time {
		secs[secTime] = le.AppendUint64(secs[secTime], uint64(v))
	}
	secs[secDocLen] = make([]byte, 0, 2*n)
	for _, v := range b.docLen {
		secs[secDocLen] = le.AppendUint16(secs[secDocLen], v)
	}
	secs[secAgent] = make([]byte, 0, 2*n)
	for _, v := range b.agent {
		secs[secAgent] = le.AppendUint16(secs[secAgent], v)
	}
	secs[secCat] = append([]byte(nil), b.cat...)
	secs[secTokens] = make([]byte, 0, 4*n)
	for _, v := range b.tokens {
		secs[secTokens] = le.AppendUint32(secs[secTokens], v)
	}
	secs[secRefOff] = make([]byte, 0, 4*n)
	secs[secRefLen] = make([]byte, 0, 4*n)
	for _, r := range b.ref {
		secs[secRefOff] = le.AppendUint32(secs[secRefOff], r.Off)
		secs[secRefLen] = le.AppendUint32(secs[secRefLen], r.Len)
	}
	secs[secAgentTab] = encodeStrings(b.agents)
	secs[secCatTab] = encodeStrings(b.cats)
	var postLen int
	for _, t := range terms {
		postLen += len(b.terms[t].raw)
	}
	termOff := make([]byte, 0, 4*(len(terms)+1))
	postOff := make([]byte, 0, 4*(len(terms)+1))
	df := make([]byte, 0, 4*len(terms))
	last := make([]byte, 0, 4*len(terms))
	var blob []byte
	post := make([]byte, 0, postLen)
	for _, t := range terms {
		pl := b.terms[t]
		termOff = le.AppendUint32(termOff, uint32(len(blob)))
		postOff = le.AppendUint32(postOff, uint32(len(post)))
		blob = append(blob, t...)
		post = append(post, pl.raw...)
		df = le.AppendUint32(df, pl.df)
		last = le.AppendUint32(last, uint32(pl.last))
	}
	termOff = le.AppendUint32(termOff, uint32(len(blob)))
	postOff = le.AppendUint32(postOff, uint32(len(post)))
	secs[secTermOff], secs[secTermBlob], secs[secPostOff] = termOff, blob, postOff
	secs[secDF], secs[secLast], secs[secPost] = df, last, post

	total := headerSize
	for _, s := range secs {
		total += len(s)
	}
	out := make([]byte, headerSize, total)
	for _, s := range secs {
		out = append(out, s...)
	}
	h := out[:0]
	h = append(h, magic...)
	h = le.AppendUint32(h, 1)
	h = le.AppendUint32(h, nSections)
	h = le.AppendUint64(h, st.Generation)
	h = le.AppendUint32(h, st.CRC)
	h = le.AppendUint32(h, 0)
	h = le.AppendUint64(h, uint64(st.Size))
	h = le.AppendUint32(h, uint32(n))
	h = le.AppendUint32(h, uint32(len(terms)))
	h = le.AppendUint64(h, b.totalLen)
	off := uint64(headerSize)
	for _, s := range secs {
		h = le.AppendUint64(h, off)
		off += uint64(len(s))
	}
	h = le.AppendUint64(h, off)
	h = le.AppendUint32(h, Checksum(out[headerSize:]))
	if len(h) != headerSize {
		panic(fmt.Sprintf("memindex: header is %d bytes, want %d", len(h), headerSize))
	}
	return out
}

func encodeStrings(ss []string) []byte {
	var b []byte
	for _, s := range ss {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}
