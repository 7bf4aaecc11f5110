package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/workpool"
)

// fileJob is a state file to check: its path and the issue its name says.
type fileJob struct {
	path  string
	issue int
}

// files lists the state files of dir whose names match (giving their
// issue), reporting the transients (locks, temporaries) found beside them.
func (c *checker) files(dir string, match func(name string) (int, bool)) []fileJob {
	var jobs []fileJob
	for _, e := range c.listDir(dir) {
		name := e.Name()
		if c.transient(dir, name) {
			continue
		}
		if issue, ok := match(name); ok {
			jobs = append(jobs, fileJob{filepath.Join(dir, name), issue})
		}
	}
	return jobs
}

// parallel runs work(0..n-1) on a few goroutines: checking a file is
// reading and hashing, which two cores do twice as fast.
func parallel(n int, work func(i int)) {
	_ = workpool.Run(context.Background(), n, 4, work)
}

// rel is p relative to the root, slash-separated.
func (c *checker) rel(p string) string {
	if c.fsys != nil {
		return c.fsName(p)
	}
	r, err := filepath.Rel(c.ws.Root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// read reads a state file found in a directory listing, reporting (and
// returning ok=false for) a symlink, anything but a regular file, and a
// file that cannot be read. A symlink is never followed: it could lead
// anywhere outside the workspace.
func (c *checker) read(path string) ([]byte, bool) {
	if c.fsys != nil {
		return c.readFS(path)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: c.rel(path), Offset: -1, Message: err.Error()})
		}
		return nil, false
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		c.add(Problem{Code: CodeSymlink, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("is a symlink (to %s); agentx writes regular files and does not follow it", target)})
		return nil, false
	case !fi.Mode().IsRegular():
		c.add(Problem{Code: CodeNotRegular, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("is not a regular file (%s)", atomicfile.Kind(fi.Mode()))})
		return nil, false
	}
	data, err := atomicfile.ReadRegular(path, atomicfile.LimitOf(path))
	if err != nil {
		code := CodeUnreadable
		if errors.Is(err, atomicfile.ErrNotRegular) {
			code = CodeNotRegular
		}
		c.add(Problem{Code: code, Severity: Error, Path: c.rel(path), Offset: -1, Message: err.Error()})
		return nil, false
	}
	return data, true
}

// listDir lists a directory that may be missing; a symlinked directory
// was already refused by CheckContained when it leads outside.
func (c *checker) listDir(dir string) []fs.DirEntry {
	if c.fsys != nil {
		entries, err := fs.ReadDir(c.fsys, c.fsName(dir))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: c.rel(dir), Offset: -1, Message: err.Error()})
		}
		return entries
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 && !c.ws.Contains(dir) {
		// CheckContained covers the main directories; this covers the
		// others (the archive) the same way: a symlink inside the root is
		// followed, one leading out is not.
		target, _ := os.Readlink(dir)
		c.add(Problem{Code: CodeSymlink, Severity: Error, Path: c.rel(dir), Offset: -1,
			Message: fmt.Sprintf("is a symlink to %s, outside the workspace; not followed", target)})
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: c.rel(dir), Offset: -1, Message: err.Error()})
	}
	return entries
}

// guardFile is the lock package's directory guard: a flock(2) the kernel

func (c *checker) exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
