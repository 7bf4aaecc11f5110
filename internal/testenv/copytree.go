package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CopyTree copies the regular files, directories and symlinks under src
// into dst. Git's object files are hard-linked instead, as git clone
// --local does: git and agentx never change one in place (a new object or
// pack is written aside and renamed over), so the copies cannot reach
// each other through them, and the copies are many: statesafety copies a
// world for every sequence and scenario (issue 37), crashpoints a
// workspace for every kill.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		default:
			if immutableGitObject(rel) && os.Link(p, target) == nil {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if info.Mode().Perm()&0o111 != 0 {
				// A git hook of the copy, which git runs next.
				return WriteExecutable(target, data, info.Mode().Perm())
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
	})
}

// immutableGitObject says whether rel, a path under the tree copied, is a loose
// object (objects/XX/HASH) or a pack file (objects/pack/pack-*) of one of
// its repositories: files git writes once and never changes.
func immutableGitObject(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	n := len(parts)
	if n < 3 || parts[n-3] != "objects" {
		return false
	}
	if parts[n-2] == "pack" {
		return strings.HasPrefix(parts[n-1], "pack-")
	}
	return len(parts[n-2]) == 2 && strings.Trim(parts[n-2], "0123456789abcdef") == "" &&
		len(parts[n-1]) >= 38 && strings.Trim(parts[n-1], "0123456789abcdef") == ""
}
