package statebranch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// SyncedRef is the local ref holding the last synchronised base: the tree
// both this clone and the remote agreed on at the last sync. It lives under
// refs/agentx/ so that no branch, tag or remote listing shows it, and git gc
// keeps its objects.
const SyncedRef = "refs/agentx/synced"

// syncedRef is SyncedRef for the main work tree; a linked work tree
// (git worktree add) has its own .agentx/ files and so its own base.
func (r *repo) syncedRef() string {
	if r.gitDir == r.commonDir {
		return SyncedRef
	}
	return "refs/agentx/worktrees/" + filepath.Base(r.gitDir) + "/synced"
}

// repo is the object and ref store of the user's repository, opened with
// go-git's storage layer only: no worktree, no index, no HEAD writes.
type repo struct {
	st *filesystem.Storage
	// gitDir is the repository's (or linked worktree's) own git directory,
	// where its HEAD lives; commonDir holds objects and refs.
	gitDir, commonDir string
}

// ErrNotRepository is returned when root is not inside a git repository.
var ErrNotRepository = errors.New("not a git repository")

// openRepo finds root's git directory (a .git directory, or a .git file
// of a linked worktree or submodule) and opens its storage.
func openRepo(root string) (*repo, error) {
	gitDir := filepath.Join(root, ".git")
	fi, err := os.Stat(gitDir)
	if err != nil {
		return nil, errcode.Wrap(errcode.InvalidInput, ErrNotRepository, "%s", root).
			WithHint("the state branch needs the workspace to be a git clone with a remote; run `git init` and `git remote add origin URL`, or set mode = \"local\"")
	}
	if !fi.IsDir() {
		data, err := os.ReadFile(gitDir)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", gitDir, err)
		}
		target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if !ok {
			return nil, errcode.New(errcode.InvalidInput, "%s is not a gitdir file", gitDir)
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(root, target)
		}
		gitDir = target
	}
	commonDir := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		commonDir = filepath.Clean(c)
	}
	st := filesystem.NewStorageWithOptions(osfs.New(commonDir), cache.NewObjectLRUDefault(), filesystem.Options{})
	return &repo{st: st, gitDir: gitDir, commonDir: commonDir}, nil
}

// ref returns the hash name points at, or ZeroHash when it does not exist.
func (r *repo) ref(name string) (plumbing.Hash, error) {
	// git rev-parse --verify -q NAME
	ref, err := storer.ResolveReference(r.st, plumbing.ReferenceName(name))
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read ref %s: %w", name, err)
	}
	return ref.Hash(), nil
}

// setRef points name at h (git update-ref NAME H).
func (r *repo) setRef(name string, h plumbing.Hash) error {
	if err := r.st.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), h)); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	return nil
}

// entry is one file of a flattened tree.
type entry struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// commitTree returns the tree of commit h (git rev-parse H^{tree}).
func (r *repo) commitTree(h plumbing.Hash) (plumbing.Hash, error) {
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c.TreeHash, nil
}

// files flattens tree h into path -> entry (git ls-tree -r H).
func (r *repo) files(h plumbing.Hash) (map[string]entry, error) {
	out := map[string]entry{}
	if h.IsZero() {
		return out, nil
	}
	var walk func(prefix string, h plumbing.Hash, depth int) error
	walk = func(prefix string, h plumbing.Hash, depth int) error {
		if depth > 16 {
			return fmt.Errorf("tree %s is nested too deep", h)
		}
		t, err := object.GetTree(r.st, h)
		if err != nil {
			return fmt.Errorf("read tree %s: %w", h, err)
		}
		for _, e := range t.Entries {
			p := prefix + e.Name
			if e.Mode == filemode.Dir {
				if err := walk(p+"/", e.Hash, depth+1); err != nil {
					return err
				}
				continue
			}
			out[p] = entry{hash: e.Hash, mode: e.Mode}
		}
		return nil
	}
	return out, walk("", h, 0)
}

// blob reads blob h (git cat-file blob H).
func (r *repo) blob(h plumbing.Hash) ([]byte, error) {
	o, err := r.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	data, err := io.ReadAll(rd)
	// The reader may decompress: its Close can report a corrupt object.
	if cerr := rd.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return data, nil
}

// writeBlob stores data (git hash-object -w --stdin).
func (r *repo) writeBlob(data []byte) (plumbing.Hash, error) {
	o := r.st.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	o.SetSize(int64(len(data)))
	w, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	h, err := r.st.SetEncodedObject(o)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	return h, nil
}

// writeTree stores the nested trees of a flat path -> entry map and
// returns the root's hash (git mktree, once per directory).
func (r *repo) writeTree(files map[string]entry) (plumbing.Hash, error) {
	type dir struct {
		files map[string]entry
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]entry{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, e := range files {
		d := root
		parts := strings.Split(p, "/")
		for _, part := range parts[:len(parts)-1] {
			sub := d.dirs[part]
			if sub == nil {
				sub = newDir()
				d.dirs[part] = sub
			}
			d = sub
		}
		d.files[parts[len(parts)-1]] = e
	}
	var write func(d *dir) (plumbing.Hash, error)
	write = func(d *dir) (plumbing.Hash, error) {
		t := &object.Tree{}
		for name, e := range d.files {
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: e.mode, Hash: e.hash})
		}
		for name, sub := range d.dirs {
			h, err := write(sub)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
		// Git orders entries by name, a directory's name compared as if
		// it ended in "/".
		key := func(e object.TreeEntry) string {
			if e.Mode == filemode.Dir {
				return e.Name + "/"
			}
			return e.Name
		}
		sort.Slice(t.Entries, func(i, j int) bool { return key(t.Entries[i]) < key(t.Entries[j]) })
		o := r.st.NewEncodedObject()
		if err := t.Encode(o); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
		}
		h, err := r.st.SetEncodedObject(o)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("write tree: %w", err)
		}
		return h, nil
	}
	return write(root)
}

// writeCommit stores a commit of tree with parents (git commit-tree).
func (r *repo) writeCommit(tree plumbing.Hash, parents []plumbing.Hash, sig object.Signature, msg string) (plumbing.Hash, error) {
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents}
	o := r.st.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	h, err := r.st.SetEncodedObject(o)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write commit: %w", err)
	}
	return h, nil
}

// resolve turns a revision into a commit: a full hash, HEAD, or a ref name
// looked up the way git does (NAME, refs/NAME, refs/tags/NAME,
// refs/heads/NAME, refs/remotes/NAME, refs/remotes/NAME/HEAD); annotated
// tags are peeled. Abbreviated hashes and revision expressions (HEAD~1)
// are not supported: --init-from is a one-time migration, and git
// rev-parse gives the full hash of anything.
func (r *repo) resolve(rev string) (plumbing.Hash, error) {
	h, err := r.lookup(rev)
	if err != nil {
		return h, err
	}
	if h.IsZero() {
		return h, errcode.New(errcode.NotFound, "revision %q not found", rev).
			WithHint("give a branch, tag or full commit hash (`git rev-parse REV` prints one)")
	}
	return r.peel(rev, h)
}

// lookup is the object a revision names before peeling; zero when no ref
// of that name exists.
func (r *repo) lookup(rev string) (plumbing.Hash, error) {
	switch {
	case len(rev) == 40 && plumbing.IsHash(rev):
		return plumbing.NewHash(rev), nil
	case rev == "HEAD":
		// HEAD is per worktree: read it from the worktree's own git dir.
		data, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read HEAD: %w", err)
		}
		s := strings.TrimSpace(string(data))
		if target, ok := strings.CutPrefix(s, "ref: "); ok {
			return r.ref(target)
		}
		return plumbing.NewHash(s), nil
	}
	for _, name := range []string{rev, "refs/" + rev, "refs/tags/" + rev, "refs/heads/" + rev, "refs/remotes/" + rev, "refs/remotes/" + rev + "/HEAD"} {
		if !strings.HasPrefix(name, "refs/") {
			continue
		}
		if h, err := r.ref(name); err != nil || !h.IsZero() {
			return h, err
		}
	}
	return plumbing.ZeroHash, nil
}

// peel follows annotated tags from h to the commit they name (git
// rev-parse REV^{commit}).
func (r *repo) peel(rev string, h plumbing.Hash) (plumbing.Hash, error) {
	for range 8 {
		o, err := r.st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return h, errcode.Wrap(errcode.NotFound, err, "revision %q", rev)
		}
		if o.Type() == plumbing.CommitObject {
			return h, nil
		}
		if o.Type() != plumbing.TagObject {
			return h, errcode.New(errcode.InvalidInput, "revision %q is a %s, not a commit", rev, o.Type())
		}
		tag, err := object.DecodeTag(r.st, o)
		if err != nil {
			return h, fmt.Errorf("read tag %s: %w", h, err)
		}
		h = tag.Target
	}
	return h, errcode.New(errcode.InvalidInput, "revision %q: tags nested too deep", rev)
}
