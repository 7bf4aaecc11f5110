package memindex

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
)

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
