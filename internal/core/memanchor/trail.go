package memanchor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
)

// position is how far the index has read the trail: each file's size (the
// last one's is where reading goes on), the lines read, and the hash of
// the last line's bytes with its length, so that a trail cut, rewritten
// or replaced since is told from one that grew.
type position struct {
	files   []fileAt
	seq     int64
	lastSum string
	lastLen int64
}

type fileAt struct {
	name string
	size int64
}

func (p *position) encode(e *enc) {
	e.u(uint64(len(p.files)))
	for _, f := range p.files {
		e.s(f.name)
		e.i(f.size)
	}
	e.i(p.seq)
	e.s(p.lastSum)
	e.i(p.lastLen)
}

func (p *position) decode(d *dec) {
	n := d.count()
	p.files = make([]fileAt, 0, n)
	for range n {
		p.files = append(p.files, fileAt{name: d.s(), size: d.i()})
	}
	p.seq, p.lastSum, p.lastLen = d.i(), d.s(), d.i()
}

// afterList, when set, runs as readOn has listed the trail (tests: a
// writer rotating it meanwhile).
var afterList func()

// errRewritten says the trail is not the one the index read: it is read
// again from its first line.
var errRewritten = errors.New("the audit trail is not the one the index was made from")

// readOn reads the lines of the trail in dir appended since p (all of it
// when p is empty) and folds each into v, telling touched the issues
// whose anchors changed; p moves to the end of the last complete line.
// errRewritten when the trail is not a continuation of what p read.
func readOn(dir string, p *position, v *View, touched func(issue int, seq int64)) (read int64, err error) {
	names, err := trailFiles(dir, p)
	if err != nil {
		return 0, err
	}
	if afterList != nil {
		afterList()
	}
	k := len(p.files)
	if len(names) < k {
		return 0, errRewritten
	}
	start := int64(0)
	check := false // the first file read is the one read last: its last line is checked first
	if k > 0 {
		// Rotated files never change (verify checks their chain): their
		// names must be the ones read, and the newest one its size; the
		// last one read is the current file, or the rotated file it
		// became.
		for i := range k - 1 {
			if names[i] != p.files[i].name {
				return 0, errRewritten
			}
		}
		if k >= 2 {
			info, err := os.Lstat(filepath.Join(dir, names[k-2]))
			if err != nil || info.Size() != p.files[k-2].size {
				return 0, errRewritten
			}
		}
		last := p.files[k-1]
		name := names[k-1]
		if name != last.name && last.name != audit.FileName {
			return 0, errRewritten
		}
		start, check = last.size, true
		p.files = p.files[:k-1]
		k--
	}
	for i := k; i < len(names); i++ {
		n, err := p.readOne(filepath.Join(dir, names[i]), start, check && i == k, v, touched)
		read += n
		if err != nil {
			return read, err
		}
		start = 0
	}
	return read, nil
}

// readOne is readFile of path from off, after checkLast when check (the
// file the index read last): one open for both.
func (p *position) readOne(path string, off int64, check bool, v *View, touched func(issue int, seq int64)) (int64, error) {
	if check && !p.lastOK(off) {
		return 0, errRewritten
	}
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // read-only
	if check {
		if err := p.checkLast(f, off); err != nil {
			return 0, err
		}
	}
	return p.readFile(f, path, off, v, touched)
}

// trailFiles lists the names of the trail's files in dir in the chain's
// order: the order p read them in when the directory holds the same files
// (a call costs one directory read, not a sort of every rotated file's
// name, nor a path made for each: readOn opens one or two), else
// audit.Files's.
func trailFiles(dir string, p *position) ([]string, error) {
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close() // read-only
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	known := make(map[string]bool, len(p.files))
	for _, f := range p.files {
		known[f.name] = true
	}
	n := 0
	same := true
	for _, name := range names {
		if !audit.IsFileName(name) {
			continue
		}
		n++
		if !known[name] {
			same = false
		}
	}
	if !same || n != len(p.files) {
		paths, err := audit.Files(dir)
		for i := range paths {
			paths[i] = filepath.Base(paths[i])
		}
		return paths, err
	}
	out := make([]string, len(p.files))
	for i, f := range p.files {
		out[i] = f.name
	}
	return out, nil
}

// checkLast checks that the line the index read last ends at off in f
// as it did (after lastOK).
func (p *position) checkLast(f *os.File, off int64) error {
	if p.lastLen == 0 {
		return nil
	}
	buf := make([]byte, p.lastLen)
	if _, err := f.ReadAt(buf, off-p.lastLen); err != nil {
		return errRewritten // shorter than it was
	}
	if contenthash.Of(buf) != p.lastSum {
		return errRewritten
	}
	return nil
}

// lastOK is checkLast's part that reads nothing: whether a last line of
// the recorded length can end at off.
func (p *position) lastOK(off int64) bool {
	if p.lastLen == 0 {
		return off == 0
	}
	return p.lastLen <= off
}

// readFile folds the complete lines of f (at path) from off on.
func (p *position) readFile(f *os.File, path string, off int64, v *View, touched func(issue int, seq int64)) (int64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", path, err)
	}
	if info.Size() < off {
		return 0, errRewritten
	}
	data := make([]byte, info.Size()-off)
	if _, err := f.ReadAt(data, off); err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	end := bytes.LastIndexByte(data, '\n') + 1 // a torn or unfinished last line waits
	data = data[:end]
	for rest := data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		line := rest[:i+1]
		rest = rest[i+1:]
		p.lastSum, p.lastLen = contenthash.Of(line), int64(len(line))
		fold(line[:i], p, v, touched)
	}
	p.files = append(p.files, fileAt{name: filepath.Base(path), size: off + int64(end)})
	return int64(end), nil
}

var (
	opKey   = []byte(`"op":"`)
	timeKey = []byte(`{"time":"`)
)

// fold folds one line: only the lines of Ops and restores are decoded in
// full; the others count (their time too).
func fold(line []byte, p *position, v *View, touched func(issue int, seq int64)) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	op, ok := member(line, opKey)
	if !ok {
		return // not a line of ours: verify reports it
	}
	seq := p.seq
	if string(op) != RestoreOp && string(op) != CreateOp && !IsOp(string(op)) {
		t, _ := member(line, timeKey)
		if !bytes.HasPrefix(line, timeKey) {
			t = nil
		}
		v.Fold(seq, &audit.Entry{Time: string(t), Op: string(op)}, nil)
		p.seq++
		return
	}
	e, err := audit.Decode(line)
	if err != nil {
		return // verify reports it; History skips it too
	}
	p.seq++
	v.Fold(seq, &e, func(issue int) {
		if touched != nil {
			touched(issue, seq)
		}
	})
}

// member is the string value after key in line (no escapes in what we
// look up: times and operation names).
func member(line, key []byte) ([]byte, bool) {
	i := bytes.Index(line, key)
	if i < 0 {
		return nil, false
	}
	rest := line[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return nil, false
	}
	return rest[:j], true
}
