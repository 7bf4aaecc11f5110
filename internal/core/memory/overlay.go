package memory

import (
	"encoding/binary"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// The reader's overlay (issue 35). An issue file changed behind the index
// (a hand edit, a checkout of one file) is indexed in memory by every
// search until the next agentx write takes it into the delta: parsed and
// analysed again each time (at 100K observations 0.8 ms of a 5.5 ms
// search for one 34 KB file, more than what the rest of the search costs
// beyond the process itself). A reader that did that work keeps it in
// pending/search.overlay, beside the freshness record (local, derived,
// safe to delete; readers write nothing else): the delta it searched,
// that is the delta on disk with the changed files indexed into it, keyed
// by the base's generation, the delta on disk it was built on (its
// checksums), the changed set, and each changed file's size and
// modification time as read.
//
// The next search with the same changed set (the freshness record's
// answer, or a sweep's) takes it when the key holds and every changed
// file still has the size and modification time it was indexed with (one
// lstat each, the comparison the stat sweep makes): O(those files), and
// nothing of their size is read unless a hit is in one of them (its row is
// read from the file and checked, as every delta row is). A second edit
// of a changed file changes its time, and the overlay is built again. An
// overlay is written only when every changed file was older than the
// racy margin when read (a second edit within the same tick could keep
// the stamp, as fresh.go argues), and only into an existing pending
// directory (creating it would change the store's directory, which the
// freshness record compares).

const (
	overlayName  = "search.overlay"
	overlayMagic = "AXOVLY02" // 01: CRC-32 (IEEE) at the end
	// overlayMaxBytes bounds what a reader reads or writes: overlayMax
	// changed files of a few thousand observations each.
	overlayMaxBytes = 64 << 20
)

func (s *Store) overlayPath() string { return filepath.Join(s.pendingDir(), overlayName) }

// overlayKey is what an overlay was built on besides the changed files'
// stamps, which its delta holds.
type overlayKey struct {
	gen     uint64
	onDelta bool   // built on the delta on disk (else on none)
	delta   uint64 // that delta's key
	changed []int  // sorted
}

func keyOf(gen uint64, d *delta, changed []int) overlayKey {
	k := overlayKey{gen: gen, changed: slices.Compact(slices.Sorted(slices.Values(changed)))}
	if d != nil {
		k.onDelta, k.delta = true, d.key
	}
	return k
}

// encodeOverlay is the file: magic, the key, the delta (as search.delta
// encodes it, idx its index) and a checksum of all before it
// (overlaySum).
func encodeOverlay(k overlayKey, d *delta, idx []byte) []byte {
	le := binary.LittleEndian
	body := d.encode(idx)
	out := make([]byte, 0, len(overlayMagic)+8+1+8+4+4*len(k.changed)+len(body)+4)
	out = append(out, overlayMagic...)
	out = le.AppendUint64(out, k.gen)
	if k.onDelta {
		out = append(out, 1)
	} else {
		out = append(out, 0)
	}
	out = le.AppendUint64(out, k.delta)
	out = le.AppendUint32(out, uint32(len(k.changed)))
	for _, n := range k.changed {
		out = le.AppendUint32(out, uint32(n))
	}
	out = append(out, body...)
	return le.AppendUint32(out, overlaySum(out))
}

// overlaySum is the overlay's checksum: FNV-1a (32 bits). A CRC-32 cost
// its tables at the first call in a process that checks one overlay of a
// few KB: crc32.ChecksumIEEE 22 us on 8 KB, byte by byte 15 us, FNV-1a
// 2 us (issue 35). A derived file's guard against damage, not against
// an attacker (who could rewrite any checksum).
func overlaySum(b []byte) uint32 {
	h := fnv.New32a()
	_, _ = h.Write(b) // never fails
	return h.Sum32()
}

// decodeOverlay returns the key and the delta of an overlay file.
func decodeOverlay(data []byte) (overlayKey, *delta, bool) {
	le := binary.LittleEndian
	var k overlayKey
	head := len(overlayMagic) + 8 + 1 + 8 + 4
	if len(data) < head+4 || string(data[:len(overlayMagic)]) != overlayMagic {
		return k, nil, false
	}
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	if overlaySum(body) != sum {
		return k, nil, false
	}
	p := len(overlayMagic)
	k.gen = le.Uint64(body[p:])
	k.onDelta = body[p+8] == 1
	k.delta = le.Uint64(body[p+9:])
	nc := int(le.Uint32(body[p+17:]))
	p = head
	if nc < 0 || nc > (len(body)-p)/4 {
		return k, nil, false
	}
	for range nc {
		k.changed = append(k.changed, int(le.Uint32(body[p:])))
		p += 4
	}
	d, err := decodeDeltaChecked(body[p:], false) // the checksum above covers it
	if err != nil {
		return k, nil, false
	}
	return k, d, true
}

func (k overlayKey) equal(o overlayKey) bool {
	return k.gen == o.gen && k.onDelta == o.onDelta && k.delta == o.delta && slices.Equal(k.changed, o.changed)
}

// readOverlay returns the delta a reader built for the base of generation
// gen, the delta d on disk (nil: none) and the issues changed behind
// both, when one is kept and still stands: nil otherwise.
func (s *Store) readOverlay(gen uint64, d *delta, changed []int) *delta {
	data, err := atomicfile.ReadRegular(s.overlayPath(), overlayMaxBytes)
	if err != nil {
		return nil
	}
	k, od, ok := decodeOverlay(data)
	if !ok || !k.equal(keyOf(gen, d, changed)) || od.base != gen {
		return nil
	}
	want := len(k.changed)
	if d != nil {
		for n, st := range d.files {
			if slices.Contains(k.changed, n) {
				continue
			}
			if od.files[n] != st {
				return nil
			}
			want++
		}
	}
	if len(od.files) != want {
		return nil
	}
	for _, n := range k.changed {
		st, held := od.files[n]
		if !held || !s.fileIs(n, st) {
			return nil
		}
	}
	return od
}

// writeOverlay keeps nd, the delta a reader built from d (nil: none) and
// the changed files, for the next search (best effort: a failure costs
// that search the indexing, nothing else).
func (s *Store) writeOverlay(gen uint64, d *delta, changed []int, nd *delta, idx []byte) {
	if _, err := os.Stat(s.pendingDir()); err != nil {
		return
	}
	// The margin counts back from when the files were read, not from now:
	// a file read within it may have changed again, in the same tick,
	// after the read however long the indexing took.
	now := nd.read
	if now.IsZero() {
		now = time.Now() // file times are compared: the real clock
	}
	for _, n := range changed {
		st, held := nd.files[n]
		if !held {
			return // unreadable: left for repair, and warned of again
		}
		if st.Size >= 0 && st.Mod >= now.Add(-s.racyMargin(st.Mod%int64(time.Second) != 0)).UnixNano() {
			return
		}
	}
	data := encodeOverlay(keyOf(gen, d, changed), nd, idx)
	if len(data) > overlayMaxBytes {
		return
	}
	_ = atomicfile.Write(s.overlayPath(), data, atomicfile.Options{NoSync: true})
}
