package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// RunFS checks a tree laid out like `.agentx/` that holds only shared
// state: a commit of the state branch, read from the object database
// (statebranch.OpenTree). It checks what Run checks of the ledgers and
// the memory issue and archive files, and every audit trail in it (the
// Action's in state/, each writer's in audit.WritersDir/ID/) as a chain of its
// own. What only a workspace has (configuration, the manifest and
// indexes, agent status, the event log, locks and temporaries) is not
// looked for. Paths in the report are fsys's.
func RunFS(fsys fs.FS, opt Options) (*Report, error) {
	c := &checker{opt: opt, rep: &Report{Problems: []Problem{}}, fsys: fsys}
	c.ledgers()
	c.memoryFiles(nil)
	trails, err := audit.BranchTrails(fsys)
	if err != nil {
		c.add(Problem{Code: audit.CodeUnreadable, Severity: Error, Path: audit.WritersDir, Offset: -1, Message: err.Error()})
	}
	for _, t := range trails {
		c.trailFS(t.Dir)
	}
	c.sort()
	return c.rep, nil
}

// trailFS checks the trail in directory dir of the tree.
func (c *checker) trailFS(dir string) {
	findings, lines, err := audit.CheckFS(c.fsys, dir)
	if lines > 0 || len(findings) > 0 {
		c.rep.Counts.Trails++
	}
	c.rep.Counts.AuditLines += lines
	c.addTrail(dir, findings, err, func(p string) string { return p })
}

// fsName is p (a path under ws, rooted at "" in a tree check) as a name
// in the tree.
func (c *checker) fsName(p string) string {
	return strings.TrimPrefix(filepath.ToSlash(p), workspace.Dir+"/")
}

// readFS is read for a file of the tree: a symlink or anything but a
// regular file is reported like on disk, a file over the state size limit
// is not read.
func (c *checker) readFS(p string) ([]byte, bool) {
	name := c.fsName(p)
	fi, err := fs.Lstat(c.fsys, name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: name, Offset: -1, Message: err.Error()})
		}
		return nil, false
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		c.add(Problem{Code: CodeSymlink, Severity: Error, Path: name, Offset: -1, Message: "is a symlink; agentx writes regular files and does not follow it"})
		return nil, false
	case !fi.Mode().IsRegular():
		c.add(Problem{Code: CodeNotRegular, Severity: Error, Path: name, Offset: -1, Message: fmt.Sprintf("is not a regular file (%s)", atomicfile.Kind(fi.Mode()))})
		return nil, false
	case fi.Size() > atomicfile.LimitOf(name):
		c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: name, Offset: -1, Message: fmt.Sprintf("%d bytes, over the limit of %d", fi.Size(), atomicfile.LimitOf(name))})
		return nil, false
	}
	data, err := fs.ReadFile(c.fsys, name)
	if err != nil {
		c.add(Problem{Code: CodeUnreadable, Severity: Error, Path: name, Offset: -1, Message: err.Error()})
		return nil, false
	}
	return data, true
}
