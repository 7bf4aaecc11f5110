package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Refs lists the refs whose names start with one of prefixes (all refs
// when none is given), resolved to the object they name
// (git for-each-ref PREFIX...). Read as git reads them, not through
// go-git's iterator: that reads every file under refs/, so one NAME.lock
// a killed update left empty ("ref file is empty") failed the whole
// listing, and with it `sync --recover`, the command for after a crash.
// A lock, an empty or unparsable loose ref is skipped, as git skips it
// ("ignoring broken ref"); a loose ref wins over its packed copy.
func (r *Repo) Refs(prefixes ...string) (map[string]Hash, error) {
	if err := r.regularRefs(); err != nil {
		return nil, err
	}
	out := map[string]Hash{}
	if err := r.packedRefs(prefixes, out); err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	refs := filepath.Join(r.CommonDir, "refs")
	err := filepath.WalkDir(refs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(r.CommonDir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if !hasPrefix(name, prefixes) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while listed
			}
			return err
		}
		if h, ok := hashLine(bytes.TrimSpace(data)); ok {
			out[name] = h
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	return out, nil
}

// packedRefs adds the refs of packed-refs under prefixes to out.
// A malformed line is passed over (git lists the others).
func (r *Repo) packedRefs(prefixes []string, out map[string]Hash) error {
	return r.eachPackedLine(func(line string) bool {
		if line == "" || line[0] == '#' || line[0] == '^' {
			return true
		}
		hash, name, ok := strings.Cut(line, " ")
		if !ok || !hasPrefix(name, prefixes) {
			return true
		}
		if h, ok := hashLine([]byte(hash)); ok {
			out[name] = h
		}
		return true
	})
}

// eachPackedLine calls each with every line of packed-refs until it
// returns false; a missing packed-refs has no lines.
func (r *Repo) eachPackedLine(each func(line string) bool) error {
	f, err := os.Open(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read-only
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if !each(sc.Text()) {
			return nil
		}
	}
	return sc.Err()
}

// hashLine is a loose ref's or packed line's object id; a symbolic ref
// ("ref: ...") or anything else is not one.
func hashLine(b []byte) (Hash, bool) {
	if len(b) != 40 {
		return Hash{}, false
	}
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return Hash{}, false
		}
	}
	return plumbing.NewHash(string(b)), true
}

func hasPrefix(name string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Reflogs returns every object id the reflogs of refs under prefixes
// name (old and new values of each entry), by ref: the commits a branch
// or a remote-tracking ref pointed at before, which a force-push or a
// deletion left behind. git writes them for the refs it updates itself
// (fetch, push); a missing log is no error.
func (r *Repo) Reflogs(prefixes ...string) (map[string][]Hash, error) {
	out := map[string][]Hash{}
	dirs := []string{r.CommonDir}
	if r.GitDir != r.CommonDir {
		dirs = append(dirs, r.GitDir)
	}
	for _, dir := range dirs {
		logs := filepath.Join(dir, "logs")
		err := filepath.WalkDir(logs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			rel, err := filepath.Rel(logs, p)
			if err != nil {
				return err
			}
			name := filepath.ToSlash(rel)
			if !hasPrefix(name, prefixes) {
				return nil
			}
			hashes, err := readReflog(p)
			if err != nil {
				return err
			}
			out[name] = append(out[name], hashes...)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read reflogs: %w", err)
		}
	}
	return out, nil
}

// readReflog reads "OLD NEW NAME <EMAIL> TIME TZ\tMESSAGE" lines.
func readReflog(p string) ([]Hash, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var out []Hash
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		for _, s := range f[:2] {
			if h := plumbing.NewHash(s); len(s) == 40 && !h.IsZero() {
				out = append(out, h)
			}
		}
	}
	return out, sc.Err()
}
