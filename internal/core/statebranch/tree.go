package statebranch

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/gitstore"
)

// TrackingRef is the remote-tracking ref a sync keeps of the state branch:
// the branch as last fetched or pushed (SyncedRef is the merge base, which
// can be a local commit when files could not be merged).
func TrackingRef(remote, branch string) string { return "refs/remotes/" + remote + "/" + branch }

// Tree is the content of one commit of the state branch read straight from
// the repository's object database, as an fs.FS (with fs.ReadDirFS,
// fs.ReadFileFS and fs.StatFS): nothing is checked out, and the user's
// index, work tree and refs are not touched. A symlink entry is reported
// as one (never followed); a submodule as an irregular file.
type Tree struct {
	// Commit is the commit read (full hash).
	Commit string
	r      *gitstore.Repo
	files  map[string]gitstore.Entry
	dirs   map[string][]string // directory ("." for the root) -> sorted child names
	// mu guards sizes. The object database needs no lock here: gitstore's
	// Repo serialises its own storage and reads loose objects in parallel.
	mu    sync.Mutex
	sizes map[gitstore.Hash]int64
}

// OpenTree reads the tree of rev (a ref such as TrackingRef's, a branch,
// a tag, HEAD or a full hash) in the repository holding root.
func OpenTree(root, rev string) (*Tree, error) {
	top, err := gitTop(root)
	if err != nil {
		return nil, err
	}
	r, err := gitstore.Open(top)
	if err != nil {
		return nil, err
	}
	h, err := r.Resolve(rev)
	if err != nil {
		return nil, err
	}
	th, err := r.CommitTree(h)
	if err != nil {
		return nil, err
	}
	files, err := r.Files(th)
	if err != nil {
		return nil, err
	}
	t := &Tree{Commit: h.String(), r: r, files: files, dirs: map[string][]string{".": nil}, sizes: map[gitstore.Hash]int64{}}
	for p := range files {
		for child := p; child != "."; {
			dir := path.Dir(child)
			_, known := t.dirs[dir]
			if !slices.Contains(t.dirs[dir], path.Base(child)) {
				t.dirs[dir] = append(t.dirs[dir], path.Base(child))
			}
			if known && dir != "." {
				break // its parents are listed already
			}
			child = dir
		}
	}
	for _, names := range t.dirs {
		slices.Sort(names)
	}
	return t, nil
}

// Open opens a file (its content read on open) or a directory.
func (t *Tree) Open(name string) (fs.File, error) {
	fi, err := t.Stat(name)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return &treeDir{info: fi, entries: t.entries(name)}, nil
	}
	data, err := t.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &treeFile{info: fi, Reader: bytes.NewReader(data)}, nil
}

// Stat describes name without reading its content (the object's header
// gives the size).
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if _, ok := t.dirs[name]; ok {
		return treeInfo{name: path.Base(name), mode: fs.ModeDir | 0o755}, nil
	}
	e, ok := t.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	info := treeInfo{name: path.Base(name), mode: 0o644}
	switch e.Mode {
	case gitstore.ModeSymlink:
		info.mode = fs.ModeSymlink | 0o777
	case gitstore.ModeExecutable:
		info.mode = 0o755
	case gitstore.ModeSubmodule:
		info.mode = fs.ModeIrregular
		return info, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	size, ok := t.sizes[e.Hash]
	if !ok {
		data, err := t.r.Blob(e.Hash)
		if err != nil {
			return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		size = int64(len(data))
		t.sizes[e.Hash] = size
	}
	info.size = size
	return info, nil
}

// ReadFile reads a file's blob.
func (t *Tree) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	e, ok := t.files[name]
	if !ok || e.Mode == gitstore.ModeSubmodule {
		if _, dir := t.dirs[name]; dir {
			return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	data, err := t.r.Blob(e.Hash)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// Names lists a directory's entries by name, sorted, reading none of
// them (ReadDir's entries carry sizes, which reads each blob).
func (t *Tree) Names(dir string) []string { return slices.Clone(t.dirs[dir]) }

// SameBlob reports whether name is a file whose content is data, by
// comparing git's object id of data with the tree entry's: the blob is
// not read.
func (t *Tree) SameBlob(name string, data []byte) bool {
	e, ok := t.files[name]
	return ok && e.Mode != gitstore.ModeSubmodule && e.Mode != gitstore.ModeSymlink && gitstore.BlobHash(data) == e.Hash
}

// ReadDir lists a directory, sorted by name.
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	if _, ok := t.dirs[name]; !ok {
		if _, file := t.files[name]; file {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
		}
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return t.entries(name), nil
}

func (t *Tree) entries(dir string) []fs.DirEntry {
	var out []fs.DirEntry
	for _, child := range t.dirs[dir] {
		p := child
		if dir != "." {
			p = dir + "/" + child
		}
		if fi, err := t.Stat(p); err == nil {
			out = append(out, fs.FileInfoToDirEntry(fi))
		}
	}
	return out
}

type treeInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (i treeInfo) Name() string       { return i.name }
func (i treeInfo) Size() int64        { return i.size }
func (i treeInfo) Mode() fs.FileMode  { return i.mode }
func (i treeInfo) ModTime() time.Time { return time.Time{} }
func (i treeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i treeInfo) Sys() any           { return nil }

type treeFile struct {
	info fs.FileInfo
	*bytes.Reader
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *treeFile) Close() error               { return nil }

type treeDir struct {
	info    fs.FileInfo
	entries []fs.DirEntry
	off     int
}

func (d *treeDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *treeDir) Close() error               { return nil }
func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.Name(), Err: fs.ErrInvalid}
}

// ReadDir is fs.ReadDirFile's: n <= 0 lists the rest at once.
func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.off += n
	return rest[:n], nil
}

// OpenTracked reads the state branch's tree at ref in the repository
// holding root, by default ("") at the remote-tracking ref a sync keeps of
// remote's branch (DefaultRemote, DefaultBranch when empty), and returns
// it with the ref read.
func OpenTracked(root, remote, branch, ref string) (*Tree, string, error) {
	named := ref != ""
	if !named {
		if remote == "" {
			remote = DefaultRemote
		}
		if branch == "" {
			branch = DefaultBranch
		}
		ref = TrackingRef(remote, branch)
	}
	tree, err := OpenTree(root, ref)
	if err != nil {
		var ce *errcode.Error
		if !named && errors.As(err, &ce) && ce.Code == errcode.NotFound {
			ce.Hint = "this clone has no copy of the state branch yet: run `agentx-hook sync` (or `git fetch` the branch), or name a REF"
		}
		return nil, "", err
	}
	return tree, ref, nil
}
