package gitstore

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// odb reads the object database of one git directory the way go-git's
// storage/filesystem does, through go-git's own pack, index and loose
// object formats (plumbing/format/packfile, idxfile, objfile), without
// that package: it also links go-git's config parser (gcfg, and through
// it encoding/gob) and URL regexps, whose package initialisers cost every
// agentx-hook process, `version` included, a quarter of a millisecond at
// start (docs/PERFORMANCE.md, "Everyday commands against their floors").
// The ref reading and deletion it did live in refread.go.
type odb struct {
	root  string           // the git directory holding objects/
	fs    billy.Filesystem // root, for go-git's packfile reader
	cache cache.Object
	// index maps each pack of objects/pack to its index, read once on
	// first need (go-git lists the packs once too: reopen sees new ones).
	index map[Hash]*idxfile.MemoryIndex
	packs []Hash // index's keys in directory order
}

func newODB(root string) *odb {
	return &odb{root: root, fs: osfs.New(root), cache: cache.NewObjectLRUDefault()}
}

// loadIndex reads the index of every pack-*.pack (go-git's requireIndex).
func (d *odb) loadIndex() error {
	if d.index != nil {
		return nil
	}
	index := map[Hash]*idxfile.MemoryIndex{}
	var packs []Hash
	ents, err := os.ReadDir(filepath.Join(d.root, "objects", "pack"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".pack") || !strings.HasPrefix(n, "pack-") {
			continue
		}
		h := plumbing.NewHash(n[5 : len(n)-5])
		if h.IsZero() {
			continue // a badly named file, as go-git skips it
		}
		idx, err := d.readIndex(h)
		if err != nil {
			return err
		}
		index[h] = idx
		packs = append(packs, h)
	}
	d.index, d.packs = index, packs
	return nil
}

func (d *odb) readIndex(pack Hash) (*idxfile.MemoryIndex, error) {
	f, err := os.Open(d.packPath(pack, "idx"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bufio.NewReader(f)).Decode(idx); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if !bytes.Equal(idx.PackfileChecksum[:], pack[:]) {
		return nil, fmt.Errorf("%w: packfile mismatch: target is %q not %q",
			idxfile.ErrMalformedIdxFile, hex.EncodeToString(idx.PackfileChecksum[:]), pack.String())
	}
	return idx, nil
}

func (d *odb) packPath(pack Hash, ext string) string {
	return filepath.Join(d.root, "objects", "pack", "pack-"+pack.String()+"."+ext)
}

// find is the pack holding h and its offset there (-1: in none).
func (d *odb) find(h Hash) (Hash, int64) {
	for _, p := range d.packs {
		if off, err := d.index[p].FindOffset(h); err == nil {
			return p, off
		}
	}
	return ZeroHash, -1
}

// hasPacked reports whether h is in a pack (go-git's HasEncodedObject
// once the loose object was not found; alternates are not consulted).
func (d *odb) hasPacked(h Hash) (bool, error) {
	if err := d.loadIndex(); err != nil {
		return false, err
	}
	_, off := d.find(h)
	return off >= 0, nil
}

// packed reads h from its pack, deltas resolved (plumbing.ErrObjectNotFound
// when no pack holds it).
func (d *odb) packed(h Hash) (o plumbing.EncodedObject, err error) {
	if err := d.loadIndex(); err != nil {
		return nil, err
	}
	pack, off := d.find(h)
	if off < 0 {
		return nil, plumbing.ErrObjectNotFound
	}
	if o, ok := d.cache.Get(h); ok {
		return o, nil
	}
	f, err := d.fs.Open(filepath.Join("objects", "pack", "pack-"+pack.String()+".pack"))
	if err != nil {
		return nil, err
	}
	p := packfile.NewPackfileWithCache(d.index[pack], d.fs, f, d.cache, 0)
	defer func() {
		if cerr := p.Close(); err == nil && cerr != nil {
			o, err = nil, cerr
		}
	}()
	return p.GetByOffset(off)
}

// loose reads the loose object h (plumbing.ErrObjectNotFound when there
// is none), as go-git's storage did.
func (d *odb) loose(h Hash) (o plumbing.EncodedObject, err error) {
	if o, ok := d.cache.Get(h); ok {
		return o, nil // an object's content never changes under its id
	}
	hx := h.String()
	f, err := os.Open(filepath.Join(d.root, "objects", hx[:2], hx[2:]))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	r, err := objfile.NewReader(f)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			o, err = nil, cerr
		}
	}()
	t, size, err := r.Header()
	if err != nil {
		return nil, err
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(t)
	mo.SetSize(size)
	if _, err := io.Copy(mo, r); err != nil {
		return nil, err
	}
	d.cache.Put(mo)
	return mo, nil
}

// object is h of type t (plumbing.AnyObject: any type) from the packs, the
// loose objects or the alternates' object databases, in go-git's order
// (EncodedObject of storage/filesystem).
func (d *odb) object(t plumbing.ObjectType, h Hash) (plumbing.EncodedObject, error) {
	return d.objectAt(t, h, 0)
}

// maxAlternateDepth bounds chains of alternates, as git's does (5): two
// that name each other must not loop.
const maxAlternateDepth = 5

func (d *odb) objectAt(t plumbing.ObjectType, h Hash, depth int) (plumbing.EncodedObject, error) {
	var o plumbing.EncodedObject
	var err error
	if d.index != nil {
		o, err = d.packed(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			o, err = d.loose(h)
		}
	} else {
		o, err = d.loose(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			o, err = d.packed(h)
		}
	}
	if errors.Is(err, plumbing.ErrObjectNotFound) && depth < maxAlternateDepth {
		for _, alt := range d.alternates() {
			if ao, aerr := alt.objectAt(t, h, depth+1); aerr == nil {
				return ao, nil
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && o.Type() != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return o, nil
}

// alternates are the object databases objects/info/alternates names (git
// clone --shared, --reference): a path per line, absolute or relative to
// the objects directory, as git reads them. One that is no directory ends
// the list (go-git failed the lookup of every alternate then).
func (d *odb) alternates() []*odb {
	data, err := os.ReadFile(filepath.Join(d.root, "objects", "info", "alternates"))
	if err != nil {
		return nil
	}
	var out []*odb
	seen := map[string]bool{}
	for line := range strings.SplitSeq(string(data), "\n") {
		p := strings.TrimSpace(line)
		if p == "" || strings.HasPrefix(p, "#") || seen[p] {
			continue
		}
		seen[p] = true
		if !filepath.IsAbs(p) {
			p = filepath.Join(d.root, "objects", p)
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return nil
		}
		out = append(out, newODB(filepath.Dir(filepath.Clean(p))))
	}
	return out
}
