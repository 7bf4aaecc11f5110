package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// GitTempAge is how old a git temporary must be before --repair removes
// it: git writes an object to tmp_obj_* and renames it within
// milliseconds, agentx its own files within a second.
const GitTempAge = 5 * time.Minute

// gitTemps reports the temporaries a killed writer left in the git
// directories (issue 26 item 6): `objects/??/tmp_obj_*` (git, go-git) and
// `agentx/*.tmp-*` (checkpoint refs and cache). They cost only disk, but
// are never cleaned by anyone else: git gc leaves them for two weeks.
func (c *checker) gitTemps() {
	if c.fsys != nil || len(c.opt.GitDirs) == 0 {
		return
	}
	var found []string
	seen := map[string]bool{}
	for _, dir := range c.opt.GitDirs {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		objs, _ := filepath.Glob(filepath.Join(dir, "objects", "??", "tmp_obj_*"))
		found = append(found, objs...)
		ents, _ := os.ReadDir(filepath.Join(dir, "agentx"))
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp-") && e.Type().IsRegular() {
				found = append(found, filepath.Join(dir, "agentx", e.Name()))
			}
		}
	}
	if len(found) == 0 {
		return
	}
	held := openFiles()
	now := c.opt.Now()
	for _, p := range found {
		fi, err := os.Lstat(p)
		if err != nil {
			continue // renamed or removed meanwhile: a live writer
		}
		age := now.Sub(fi.ModTime())
		pr := Problem{Code: CodeGitTemp, Severity: Warning, Path: c.rel(p), Offset: -1}
		switch {
		case held[p]:
			pr.Severity = Info
			pr.Message = "a git or agentx temporary a running process holds open (a write in progress)"
		case age < GitTempAge:
			pr.Severity = Info
			pr.Message = fmt.Sprintf("a git or agentx temporary %s old: a write in progress, or one killed a moment ago", age.Round(time.Second))
		default:
			pr.Message = fmt.Sprintf("a git or agentx temporary %s old that no process holds: left by a killed writer (%d bytes)", age.Round(time.Second), fi.Size())
			pr.Repair = "remove it"
		}
		c.add(pr)
	}
}

// removableGitTemp checks again, at repair time, that p is old and held
// by no process.
func removableGitTemp(p string, now time.Time) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < GitTempAge {
		return fmt.Errorf("not removed: no longer an old regular file")
	}
	if openFiles()[p] {
		return fmt.Errorf("not removed: a running process holds it")
	}
	return nil
}

// openFiles is the set of files the processes of this machine hold open,
// as far as /proc shows them (Linux; elsewhere empty: age alone decides).
func openFiles() map[string]bool {
	out := map[string]bool{}
	if runtime.GOOS != "linux" {
		return out
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, p := range procs {
		if p.Name()[0] < '0' || p.Name()[0] > '9' {
			continue
		}
		fdDir := "/proc/" + p.Name() + "/fd"
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && strings.HasPrefix(target, "/") {
				out[target] = true
			}
		}
	}
	return out
}
