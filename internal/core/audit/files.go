package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
)

// The trail's files: audit.jsonl and the rotated months, their order,
// the chain's head across them, and the per-writer directory on the
// state branch.

// Head returns the hash of the trail's last complete line in dir (the
// chain's head), "" when the trail has none. A checkpoint records it, so
// that a trail rewritten as a whole chain is told from one that grew.
func Head(dir string) (string, error) {
	files, err := Files(dir)
	if err != nil {
		return "", err
	}
	return headOf(files)
}

// lastRotatedHash is the hash of the last line of the newest rotated file,
// where a fresh audit.jsonl continues the chain.
func lastRotatedHash(dir string) (string, error) {
	files, err := Files(dir)
	if err != nil {
		return "", err
	}
	if n := len(files); n > 0 && filepath.Base(files[n-1]) == FileName {
		files = files[:n-1]
	}
	return headOf(files)
}

// headOf is the hash of the last complete line of the newest of files
// (oldest first) that has one.
func headOf(files []string) (string, error) {
	for i := len(files) - 1; i >= 0; i-- {
		f, err := atomicfile.OpenRegular(files[i])
		if err != nil {
			return "", fmt.Errorf("open %s: %w", files[i], err)
		}
		info, err := f.Stat()
		if err != nil {
			_ = f.Close()
			return "", err
		}
		_, head, err := ends(f, info.Size())
		_ = f.Close()
		if err != nil || head != "" {
			return head, err
		}
	}
	return "", nil
}

// Files lists the trail's files oldest first: the rotated ones by month,
// then audit.jsonl.
func Files(dir string) ([]string, error) {
	return listTrail(dir, os.ReadDir, filepath.Join)
}

// listTrail lists the trail's files in dir, read with readDir and named
// with join (the disk's or an fs.FS's), in the chain's order; none when
// dir does not exist.
func listTrail(dir string, readDir func(string) ([]fs.DirEntry, error), join func(...string) string) ([]string, error) {
	entries, err := readDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	names := ordered(entries)
	for i, name := range names {
		names[i] = join(dir, name)
	}
	return names, nil
}

// ordered is the names of the trail's files among entries in the chain's
// order: the rotated ones by month, then audit.jsonl.
func ordered(entries []fs.DirEntry) []string {
	var rotated []string
	current := false
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == FileName:
			current = true
		case IsFileName(name):
			rotated = append(rotated, name)
		}
	}
	sort.Slice(rotated, func(i, j int) bool { return rotatedKey(rotated[i]) < rotatedKey(rotated[j]) })
	if current {
		rotated = append(rotated, FileName)
	}
	return rotated
}

// WritersDir is where a state branch keeps each writer's trail, one
// directory per clone (WritersDir/WRITER-ID/audit[-YYYY-MM].jsonl); the
// Action's own trail is state/audit*.jsonl beside it.
const WritersDir = "state/audit.d"

// IsFileName reports whether name is one of a trail's files: audit.jsonl
// or a rotated audit-YYYY-MM[.N].jsonl.
func IsFileName(name string) bool {
	return name == FileName ||
		strings.HasPrefix(name, "audit-") && strings.HasSuffix(name, ".jsonl") && monthOf(name[len("audit-"):]) != ""
}

// rotatedKey orders audit-2026-03.jsonl before audit-2026-03.2.jsonl.
func rotatedKey(p string) string {
	name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
	month, n, _ := strings.Cut(strings.TrimPrefix(name, "audit-"), ".")
	return month + fmt.Sprintf("%08s", n)
}
