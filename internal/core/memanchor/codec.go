package memanchor

import (
	"encoding/binary"
	"errors"
)

// The index's files are small binary records (a read path decodes one on
// every call): unsigned varints, and strings as a length and their bytes.

type enc struct{ b []byte }

func (e *enc) u(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) i(v int64)  { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) s(v string) { e.u(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) bool(v bool) {
	if v {
		e.u(1)
	} else {
		e.u(0)
	}
}

func (e *enc) key(k Key) { e.s(k.Time); e.i(k.Seq) }

// errShort is a record cut short or not ours: the file is rebuilt.
var errShort = errors.New("memanchor: malformed index record")

type dec struct {
	b   []byte
	err error
}

// varint reads one varint with read (binary.Uvarint or binary.Varint);
// after the first error every read yields the zero value.
func varint[T uint64 | int64](d *dec, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) u() uint64 { return varint(d, binary.Uvarint) }
func (d *dec) i() int64  { return varint(d, binary.Varint) }

func (d *dec) s() string {
	n := d.u()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = errShort
		return ""
	}
	v := string(d.b[:n])
	d.b = d.b[n:]
	return v
}

func (d *dec) bool() bool { return d.u() == 1 }

func (d *dec) key() Key { return Key{Time: d.s(), Seq: d.i()} }

// count reads a length that cannot exceed what is left of the record
// (each element takes a byte at least).
func (d *dec) count() int {
	n := d.u()
	if n > uint64(len(d.b)) {
		d.err = errShort
		return 0
	}
	return int(n)
}

func (s *stamp) encode(e *enc) {
	e.i(s.size)
	e.i(s.mod)
	e.i(s.change)
	e.u(s.ino)
	e.bool(s.exists)
}

func (s *stamp) decode(d *dec) {
	s.size, s.mod, s.change, s.ino, s.exists = d.i(), d.i(), d.i(), d.u(), d.bool()
}
