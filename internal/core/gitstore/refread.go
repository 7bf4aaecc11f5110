package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Refs are read (and removed) here as go-git's storage/filesystem read
// them, without that package (see odb for why): the loose file, else the
// ref's line in packed-refs, symbolic refs followed.

// maxResolve bounds a chain of symbolic refs (go-git's
// storer.MaxResolveRecursion).
const maxResolve = 1024

var (
	errRefName          = errors.New("not under refs/ nor a valid pseudo-ref")
	errPackedRefsFormat = errors.New("malformed packed-ref")
	errRefLoop          = errors.New("max. recursion level reached")
)

// checkRefName refuses a name that could escape the git directory once
// made a path (go-git's validReferenceName, less its NTFS/HFS disguises
// of "..", which IsSafe's refs/ check and regularRef's cover for the
// names agentx reads).
func checkRefName(name string) error {
	if !plumbing.ReferenceName(name).IsSafe() {
		return fmt.Errorf("%w: %q", errRefName, name)
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			return fmt.Errorf("%w: %q", errRefName, name)
		}
	}
	return nil
}

// resolveRef is the object ref name names, symbolic refs followed;
// ZeroHash when it (or the ref it points to) does not exist.
func (r *Repo) resolveRef(name string) (Hash, error) {
	for range maxResolve {
		ref, err := r.readRef(name)
		if err != nil || ref == nil {
			return ZeroHash, err
		}
		if ref.Type() != plumbing.SymbolicReference {
			return ref.Hash(), nil
		}
		name = ref.Target().String()
	}
	return ZeroHash, errRefLoop
}

// readRef reads ref name, nil when it does not exist. A loose file that
// is a directory, unreadable or empty is passed over for packed-refs, as
// go-git passed it over.
func (r *Repo) readRef(name string) (*plumbing.Reference, error) {
	if err := checkRefName(name); err != nil {
		return nil, err
	}
	p := r.refPath(name)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		if data, err := os.ReadFile(p); err == nil && len(data) > 0 {
			return plumbing.NewReferenceFromStrings(name, strings.TrimSpace(string(data))), nil
		}
	}
	var found *plumbing.Reference
	err := r.scanPacked(func(line string, ref *plumbing.Reference) bool {
		if ref != nil && ref.Name().String() == name {
			found = ref
			return false
		}
		return true
	})
	return found, err
}

// scanPacked calls each with every line of packed-refs and the ref it
// holds (nil for a comment or a peeled line) until each returns false. A
// missing packed-refs has no lines.
func (r *Repo) scanPacked(each func(line string, ref *plumbing.Reference) bool) error {
	var bad bool
	err := r.eachPackedLine(func(line string) bool {
		var ref *plumbing.Reference
		if line != "" && line[0] != '#' && line[0] != '^' {
			hash, name, ok := strings.Cut(line, " ")
			if !ok || strings.Contains(name, " ") {
				bad = true
				return false
			}
			ref = plumbing.NewReferenceFromStrings(name, hash)
		}
		return each(line, ref)
	})
	if bad {
		return errPackedRefsFormat
	}
	return err
}

// removeRef deletes the loose ref name and its line in packed-refs (with
// the peeled line after it). packed-refs is rewritten the way git
// rewrites it: under packed-refs.lock, created exclusively, synced and
// renamed over it.
func (r *Repo) removeRef(name string) error {
	if err := checkRefName(name); err != nil {
		return err
	}
	if err := os.Remove(r.refPath(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, found, err := r.packedWithout(name); err != nil || !found {
		return err
	}
	path := filepath.Join(r.CommonDir, "packed-refs")
	lock, err := os.OpenFile(path+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("packed-refs: %w", ErrRefLocked)
	}
	if err != nil {
		return err
	}
	// Read again under the lock: git may have packed refs meanwhile.
	kept, _, err := r.packedWithout(name)
	if err != nil {
		_ = lock.Close()
		_ = os.Remove(lock.Name())
		return err
	}
	_, werr := lock.Write(kept)
	serr := lock.Sync()
	cerr := lock.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(lock.Name())
		return err
	}
	if err := os.Rename(lock.Name(), path); err != nil {
		_ = os.Remove(lock.Name())
		return err
	}
	return nil
}

// packedWithout is packed-refs without ref name's line and the peeled
// line after it, and whether it was there.
func (r *Repo) packedWithout(name string) ([]byte, bool, error) {
	var kept bytes.Buffer
	found, skipPeel := false, false
	err := r.scanPacked(func(line string, ref *plumbing.Reference) bool {
		switch {
		case ref != nil && ref.Name().String() == name:
			found, skipPeel = true, true
			return true
		case skipPeel && strings.HasPrefix(line, "^"):
			return true
		}
		skipPeel = false
		kept.WriteString(line + "\n")
		return true
	})
	return kept.Bytes(), found, err
}
