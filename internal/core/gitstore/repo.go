// Package gitstore owns the objects and refs agentx writes into the user's
// git repository itself: blobs, trees and commits put straight into the
// object database and refs under refs/agentx/, through go-git's storage
// formats only (odb.go). Nothing here reads or writes the user's index, work tree,
// HEAD, branches or stash.
//
// Trees, commits and tags are encoded and decoded here rather than with
// go-git's plumbing/object: that package links OpenPGP and its
// cryptography, whose package initialisers every agentx-hook process
// would pay for at start, and the formats are a page of code.
package gitstore

import (
	"bufio"
	"compress/zlib"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// Repo is the object and ref store of the user's repository.
type Repo struct {
	// mu serialises the object database's reads, which are not safe for
	// concurrent use (go-git's pack reader and caches): Has and the reads
	// may be called from several goroutines.
	mu sync.Mutex
	db *odb
	// GitDir is the repository's (or linked worktree's) own git
	// directory, where its HEAD lives; CommonDir holds objects and refs.
	GitDir, CommonDir string
	// Top is the work tree's top directory (the one holding .git).
	Top string
	// Missing, when set, is called once, the first time an object is not
	// in the database: a partial or treeless clone's copy of a branch
	// lacks the blobs or trees its filter left on the remote, and Missing
	// has git fetch them. The read is then tried again on the database
	// as it now is.
	Missing     func() error
	missingDone bool
}

// Errors Open reports, wrapped in an errcode.Error (INVALID_INPUT).
var (
	ErrNotRepository = errors.New("not a git repository")
	ErrBare          = errors.New("bare repository")
	ErrShallow       = errors.New("shallow repository")
)

// Top walks up from dir to the directory holding .git (a directory, or
// the file of a linked worktree or submodule).
func Top(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			if isBare(dir) {
				return "", errcode.Wrap(errcode.InvalidInput, ErrBare, "%s", dir)
			}
			return "", errcode.Wrap(errcode.InvalidInput, ErrNotRepository, "%s", dir)
		}
		d = parent
	}
}

// isBare: dir (or an ancestor) looks like a git directory itself.
func isBare(dir string) bool {
	for d := dir; ; {
		_, herr := os.Stat(filepath.Join(d, "HEAD"))
		_, oerr := os.Stat(filepath.Join(d, "objects"))
		if herr == nil && oerr == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// Open finds the git directory of the work tree at or above dir and opens
// its storage.
func Open(dir string) (*Repo, error) {
	top, err := Top(dir)
	if err != nil {
		return nil, err
	}
	gitDir := filepath.Join(top, ".git")
	fi, err := os.Stat(gitDir)
	if err != nil {
		return nil, errcode.Wrap(errcode.InvalidInput, ErrNotRepository, "%s", top)
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
			target = filepath.Join(top, target)
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
	if _, err := os.Stat(filepath.Join(commonDir, "objects")); err != nil {
		return nil, errcode.Wrap(errcode.InvalidInput, ErrNotRepository, "%s has no object database", commonDir)
	}
	return &Repo{db: newODB(commonDir), GitDir: gitDir, CommonDir: commonDir, Top: top}, nil
}

// Shallow reports whether the repository is a shallow clone: its history
// is cut, and a commit of ours could name parents git cannot show.
func (r *Repo) Shallow() bool {
	fi, err := os.Stat(filepath.Join(r.CommonDir, "shallow"))
	return err == nil && fi.Size() > 0
}

// Linked reports whether the work tree is a linked one (git worktree add).
func (r *Repo) Linked() bool { return r.GitDir != r.CommonDir }

// Ref returns the hash name points at, or ZeroHash when it does not exist.
func (r *Repo) Ref(name string) (Hash, error) {
	// git rev-parse --verify -q NAME
	if err := r.regularRef(name); err != nil {
		return ZeroHash, err
	}
	h, err := r.resolveRef(name)
	if err != nil {
		return ZeroHash, fmt.Errorf("read ref %s: %w", name, err)
	}
	return h, nil
}

// SetRef points name at h (git update-ref NAME H), atomically and with a
// reflog line (refwrite.go).
func (r *Repo) SetRef(name string, h Hash) error {
	return r.updateRef(name, h, ZeroHash, false, "agentx: update")
}

// ErrRefMoved is returned by SwapRef when the ref no longer holds old.
var ErrRefMoved = errors.New("ref moved meanwhile")

// IsObjectNotFound reports an object the repository does not hold
// (go-git's error, which every read wraps). A function, not an exported
// error value: a package-level value would be an initialiser at every
// start of agentx-hook (cmd/agentx-hook's TestFewInitialisers).
func IsObjectNotFound(err error) bool { return errors.Is(err, plumbing.ErrObjectNotFound) }

// SwapRef points name at h only while it still points at old (ZeroHash:
// does not exist) (git update-ref NAME H OLD).
func (r *Repo) SwapRef(name string, h, old Hash) error {
	return r.updateRef(name, h, old, true, "agentx: update")
}

// RemoveRef deletes name (git update-ref -d NAME); a missing ref is fine.
func (r *Repo) RemoveRef(name string) error {
	if err := r.removeRef(name); err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return nil
}

// Has reports whether object h is stored (loose or packed). It is safe
// for concurrent use: a loose object is one stat, the packs' indexes are
// consulted one caller at a time.
func (r *Repo) Has(h Hash) bool {
	hex := h.String()
	if _, err := os.Lstat(filepath.Join(r.CommonDir, "objects", hex[:2], hex[2:])); err == nil {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ok, err := r.db.hasPacked(h)
	return ok && err == nil
}

// read returns the content of object h of type t.
func (r *Repo) read(t plumbing.ObjectType, h Hash) ([]byte, error) {
	if data, ok, err := r.readLoose(t, h); ok || err != nil {
		return data, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.db.object(t, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) && r.Missing != nil && !r.missingDone {
		r.missingDone = true
		if ferr := r.Missing(); ferr != nil {
			return nil, fmt.Errorf("read %s %s: %w (fetching the missing objects: %w)", t, h, err, ferr)
		}
		// go-git lists the packs once: open the storage again to see
		// the ones git just wrote.
		r.db = newODB(r.CommonDir)
		if data, ok, lerr := r.readLoose(t, h); ok || lerr != nil {
			return data, lerr
		}
		o, err = r.db.object(t, h)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	data, err := io.ReadAll(rd)
	// The reader may decompress: its Close can report a corrupt object.
	if cerr := rd.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	return data, nil
}

// readLoose reads object h when it is a loose object (ok false when it is
// not one: packed, or missing). Read here rather than through go-git,
// which hashes every object it reads with collision-detecting SHA-1: a
// restore reads 100 MB. zlib's checksum is still checked.
func (r *Repo) readLoose(t plumbing.ObjectType, h Hash) (data []byte, ok bool, err error) {
	hex := h.String()
	f, err := os.Open(filepath.Join(r.CommonDir, "objects", hex[:2], hex[2:]))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	defer func() { _ = f.Close() }() // read-only
	fail := func(err error) ([]byte, bool, error) {
		return nil, false, errcode.Wrap(errcode.CorruptState, err, "read %s %s", t, h)
	}
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return fail(err)
	}
	br := bufio.NewReader(zr)
	head, err := br.ReadString(0)
	if err != nil {
		return fail(err)
	}
	typ, size, _ := strings.Cut(strings.TrimSuffix(head, "\x00"), " ")
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil || n < 0 || n > 1<<32 {
		return fail(fmt.Errorf("bad object header %q", head))
	}
	if typ != t.String() {
		return fail(fmt.Errorf("is a %s, not a %s", typ, t))
	}
	data = make([]byte, n)
	if _, err := io.ReadFull(br, data); err != nil {
		return fail(err)
	}
	// Reading past the end checks zlib's checksum.
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		return fail(fmt.Errorf("trailing data or bad checksum: %w", err))
	}
	return data, true, nil
}

// write stores data as an object of type t unless it is there already
// (git hash-object -w -t T), and returns its hash.
func (r *Repo) write(t plumbing.ObjectType, data []byte) (Hash, error) {
	h := hashObject(t, data)
	if r.Has(h) {
		return h, nil
	}
	return h, r.storeLoose(t, h, data)
}

// hashObject is the object id git gives data as an object of type t. It
// uses the standard library's SHA-1 (hardware accelerated) rather than
// go-git's collision-detecting one, three times slower: the content is
// ours, not a peer's.
func hashObject(t plumbing.ObjectType, data []byte) Hash {
	h := sha1.New()
	h.Write([]byte(t.String() + " " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var out Hash
	copy(out[:], h.Sum(nil))
	return out
}

// StoreBlob stores data, whose blob hash the caller computed as h
// (BlobHash), as a loose object; the caller checked it is missing.
func (r *Repo) StoreBlob(h Hash, data []byte) error {
	return r.storeLoose(plumbing.BlobObject, h, data)
}

// storeLoose writes the loose object h itself instead of through go-git's
// object writer, which compresses at zlib's default level and hashes the
// content twice more with collision-detecting SHA-1: on a 35 MB memory
// manifest that is three times the cost of git's own `git add` (git
// writes loose objects at Z_BEST_SPEED, core.looseCompression = 1). The
// format is git's: zlib of "TYPE SIZE\0" and the content, at
// objects/XX/YYYY..., staged in a temporary file in the same directory
// and renamed, read-only like git's.
func (r *Repo) storeLoose(t plumbing.ObjectType, h Hash, data []byte) error {
	hex := h.String()
	dir := filepath.Join(r.CommonDir, "objects", hex[:2])
	final := filepath.Join(dir, hex[2:])
	if _, err := os.Lstat(final); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone after the rename
	werr := writeZlib(tmp, []byte(t.String()+" "+strconv.Itoa(len(data))+"\x00"), data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	if err := os.Chmod(tmp.Name(), 0o444); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	return nil
}

// Blob reads blob h (git cat-file blob H).
func (r *Repo) Blob(h Hash) ([]byte, error) { return r.read(plumbing.BlobObject, h) }

// WriteBlob stores data (git hash-object -w --stdin).
func (r *Repo) WriteBlob(data []byte) (Hash, error) {
	return r.write(plumbing.BlobObject, data)
}

// Resolve turns a revision into a commit: a full hash, HEAD, or a ref name
// looked up the way git does (NAME, refs/NAME, refs/tags/NAME,
// refs/heads/NAME, refs/remotes/NAME, refs/remotes/NAME/HEAD); annotated
// tags are peeled. Abbreviated hashes and revision expressions (HEAD~1)
// are not supported: `git rev-parse` gives the full hash of anything.
func (r *Repo) Resolve(rev string) (Hash, error) {
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
func (r *Repo) lookup(rev string) (Hash, error) {
	switch {
	case len(rev) == 40 && plumbing.IsHash(rev):
		return plumbing.NewHash(rev), nil
	case rev == "HEAD":
		// HEAD is per worktree: read it from the worktree's own git dir.
		data, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
		if err != nil {
			return ZeroHash, fmt.Errorf("read HEAD: %w", err)
		}
		s := strings.TrimSpace(string(data))
		if target, ok := strings.CutPrefix(s, "ref: "); ok {
			return r.Ref(target)
		}
		return plumbing.NewHash(s), nil
	}
	for _, name := range []string{rev, "refs/" + rev, "refs/tags/" + rev, "refs/heads/" + rev, "refs/remotes/" + rev, "refs/remotes/" + rev + "/HEAD"} {
		if !strings.HasPrefix(name, "refs/") || checkRefName(name) != nil {
			continue // no ref can have that name (../../x): not found, no I/O error
		}
		if h, err := r.Ref(name); err != nil || !h.IsZero() {
			return h, err
		}
	}
	return ZeroHash, nil
}

// peel follows annotated tags from h to the commit they name (git
// rev-parse REV^{commit}).
func (r *Repo) peel(rev string, h Hash) (Hash, error) {
	for range 8 {
		r.mu.Lock()
		o, err := r.db.object(plumbing.AnyObject, h)
		r.mu.Unlock()
		if err != nil {
			return h, errcode.Wrap(errcode.NotFound, err, "revision %q", rev)
		}
		if o.Type() == plumbing.CommitObject {
			return h, nil
		}
		if o.Type() != plumbing.TagObject {
			return h, errcode.New(errcode.InvalidInput, "revision %q is a %s, not a commit", rev, o.Type())
		}
		data, err := r.read(plumbing.TagObject, h)
		if err != nil {
			return h, err
		}
		target, ok := header(data, "object")
		if !ok || len(target) != 40 || !plumbing.IsHash(target) {
			return h, errcode.New(errcode.CorruptState, "tag %s names no object", h)
		}
		h = plumbing.NewHash(target)
	}
	return h, errcode.New(errcode.InvalidInput, "revision %q: tags nested too deep", rev)
}
