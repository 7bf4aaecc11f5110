package verify

import (
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
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
	quiet := map[string]bool{}
	for _, dir := range c.opt.GitDirs {
		quiet[dir] = !liveWriterLock(dir, c.host)
	}
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
		case age < GitTempAge && quiet[gitDirOf(p, c.opt.GitDirs)] && age >= GitTempQuiet:
			// No process holds it, nor any of agentx's git locks: the
			// writer that made it is gone (issue 32).
			pr.Message = fmt.Sprintf("a git or agentx temporary no process holds, and no live process holds agentx's git locks: left by a killed writer (%d bytes)", fi.Size())
			pr.Repair = "remove it"
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

// GitTempQuiet is how old a temporary held by no process must be, when no
// live process holds agentx's git locks, to be a killed writer's: more
// than the moment between a writer's close and its rename.
const GitTempQuiet = 2 * time.Second

// removableGitTemp checks again, at repair time, that p is held by no
// process and old, or its writer provably gone.
func removableGitTemp(p string, now time.Time, gitDirs []string, host string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	age := now.Sub(fi.ModTime())
	quiet := age >= GitTempQuiet && !liveWriterLock(gitDirOf(p, gitDirs), host)
	if !fi.Mode().IsRegular() || (age < GitTempAge && !quiet) {
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

// gitDirOf is the git directory of dirs p is in ("" for none).
func gitDirOf(p string, dirs []string) string {
	for _, d := range dirs {
		if strings.HasPrefix(p, d+string(filepath.Separator)) {
			return d
		}
	}
	return ""
}

// liveWriterLock reports whether a process that runs (or one on another
// host, which cannot be told) holds one of agentx's locks in the git
// directory dir (`agentx/*.lock`: the checkpoints' history, the state
// branch): agentx writes its git objects under them. The owner is read
// from the lock's own content (lock.ParseContent).
func liveWriterLock(dir, host string) bool {
	if dir == "" {
		return true
	}
	locks, _ := filepath.Glob(filepath.Join(dir, "agentx", "*.lock"))
	for _, p := range locks {
		if filepath.Base(p) == guardFile {
			continue // the lock package's guard of the directory, empty
		}
		data, err := atomicfile.ReadRegular(p, 4096)
		if err != nil {
			continue // gone meanwhile
		}
		content, _, ok := lock.ParseContent(data)
		if !ok || content.Host != host || content.PID <= 0 || alive(content.PID) {
			return true
		}
	}
	return false
}
