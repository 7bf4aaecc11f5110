package memanchor

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"sort"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

var randRead = rand.Read

// baseReader reads the base's sections: its table is read whole (a few
// bytes per issue), a section only when its issue is judged.
type baseReader struct {
	f     *os.File
	body  int64 // where the sections begin
	table map[int][2]int64
}

// openBase opens the base of generation gen (another generation is a
// base another process wrote since: not the one the state describes).
func openBase(path string, gen uint64) (*baseReader, error) {
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	b := &baseReader{f: f, table: map[int][2]int64{}}
	head := make([]byte, len(baseMagic)+12)
	if _, err := f.ReadAt(head, 0); err != nil || string(head[:len(baseMagic)]) != baseMagic ||
		binary.LittleEndian.Uint64(head[len(baseMagic):]) != gen {
		b.close()
		return nil, fmt.Errorf("%s: not the anchors index of generation %d", path, gen)
	}
	n := int64(binary.LittleEndian.Uint32(head[len(baseMagic)+8:]))
	tb := make([]byte, n)
	if _, err := f.ReadAt(tb, int64(len(head))); err != nil {
		b.close()
		return nil, fmt.Errorf("%s: %w", path, errShort)
	}
	b.body = int64(len(head)) + n
	d := &dec{b: tb}
	for k := d.count(); k > 0 && d.err == nil; k-- {
		issue := int(d.i())
		b.table[issue] = [2]int64{int64(d.u()), int64(d.u())}
	}
	if d.err != nil {
		b.close()
		return nil, fmt.Errorf("%s: %w", path, d.err)
	}
	return b, nil
}

func (b *baseReader) close() {
	if b != nil && b.f != nil {
		_ = b.f.Close() // read-only
		b.f = nil
	}
}

// section adds issue's anchors to into.
func (b *baseReader) section(issue int, into map[string]Anchor) error {
	at, ok := b.table[issue] // none in a reader's in-memory base
	if !ok {
		return nil
	}
	buf := make([]byte, at[1])
	if _, err := b.f.ReadAt(buf, b.body+at[0]); err != nil {
		return fmt.Errorf("read the anchors index: %w", errShort)
	}
	d := &dec{b: buf}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		id := d.s()
		a := Anchor{Hash: d.s(), At: d.key(), Issue: issue}
		if old, ok := into[id]; !ok || !old.At.After(a.At) {
			into[id] = a
		}
	}
	return d.err
}

// writeBase writes anchors as the base, under a new generation.
func (x *Index) writeBase(anchors map[string]Anchor) (uint64, error) {
	byIssue := map[int]map[string]Anchor{}
	for id, a := range anchors {
		m := byIssue[a.Issue]
		if m == nil {
			m = map[string]Anchor{}
			byIssue[a.Issue] = m
		}
		m[id] = a
	}
	sections := make(map[int][]byte, len(byIssue))
	for n, m := range byIssue {
		sections[n] = encodeSection(m)
	}
	return x.writeSections(sections)
}

// encodeSection is one issue's section of the base.
func encodeSection(anchors map[string]Anchor) []byte {
	var e enc
	e.u(uint64(len(anchors)))
	for id, a := range anchors {
		e.s(id)
		e.s(a.Hash)
		e.key(a.At)
	}
	return e.b
}

// bodyBytes are all the sections as stored, in one read.
func (b *baseReader) bodyBytes() ([]byte, error) {
	info, err := b.f.Stat()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, max(0, info.Size()-b.body))
	if _, err := b.f.ReadAt(buf, b.body); err != nil && len(buf) > 0 {
		return nil, fmt.Errorf("read the anchors index: %w", errShort)
	}
	return buf, nil
}

// writeSections writes the base of the encoded sections, under a new
// generation.
func (x *Index) writeSections(sections map[int][]byte) (uint64, error) {
	issues := make([]int, 0, len(sections))
	for n := range sections {
		issues = append(issues, n)
	}
	sort.Ints(issues)
	var body enc
	var table enc
	table.u(uint64(len(issues)))
	for _, n := range issues {
		off := len(body.b)
		body.b = append(body.b, sections[n]...)
		table.i(int64(n))
		table.u(uint64(off))
		table.u(uint64(len(body.b) - off))
	}
	var genb [8]byte
	if _, err := randRead(genb[:]); err != nil {
		return 0, err
	}
	gen := binary.LittleEndian.Uint64(genb[:])
	out := make([]byte, 0, 20+len(table.b)+len(body.b))
	out = append(out, baseMagic...)
	out = binary.LittleEndian.AppendUint64(out, gen)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(table.b)))
	out = append(out, table.b...)
	out = append(out, body.b...)
	if err := x.mkdir(); err != nil {
		return 0, err
	}
	if err := atomicfile.Write(x.basePath(), out, atomicfile.Options{NoSync: true}); err != nil {
		return 0, err
	}
	return gen, nil
}
