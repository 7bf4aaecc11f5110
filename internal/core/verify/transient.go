package verify

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// releases when its holder dies, so it is never stale whatever it holds.
const guardFile = ".agentx-guard.lock"

// transient checks a name in a state directory for what a crashed writer
// leaves (a lock, a temporary); it reports true when name was one.
func (c *checker) transient(dir, name string) bool {
	if c.fsys != nil {
		return false // a tree holds no locks nor temporaries to age
	}
	path := filepath.Join(dir, name)
	switch {
	case name == guardFile:
		return true
	case strings.HasSuffix(name, ".lock"):
		c.lockFile(path)
		return true
	case strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-"):
		c.tempFile(path)
		return true
	case strings.Contains(name, ".lock."):
		return true // a lock's staging file or guard: the lock package ages them out
	}
	return false
}

// lockFile reports a lock left by a dead process on this host (repaired by
// taking it over, which the lock package does safely) or older than the
// stale threshold (information: the next writer takes it over).
func (c *checker) lockFile(path string) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	data, err := atomicfile.ReadRegular(path, 4096)
	if err != nil {
		return
	}
	content, at, ok := lock.ParseContent(data)
	if !ok {
		at = fi.ModTime()
	}
	age := c.opt.Now().Sub(at)
	switch {
	case ok && content.Host != "" && content.Host == c.host && content.PID > 0 && !alive(content.PID):
		if !stillThere(path, fi, data) {
			return // released as its holder exited, after the read above
		}
		c.add(Problem{Code: CodeDeadLock, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("lock of process %d (%s), which is no longer running", content.PID, content.Agent),
			Repair:  "take the lock over and release it"})
	case age > c.opt.StaleAfter:
		c.add(Problem{Code: CodeStaleLock, Severity: Info, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("lock %s old (held by pid %d on %q); the next writer takes it over", age.Round(time.Second), content.PID, content.Host)})
	}
}

// tempFile reports a temporary of an atomic write left by a writer that is
// gone: at once when its name carries the writer's process id and that
// process no longer runs (agentx names its temporaries so, issue 32),
// else once it is older than the lock threshold (its writer held the
// file's lock, which would have been taken over by now).
func (c *checker) tempFile(path string) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	if pid, ok := atomicfile.TempPID(filepath.Base(path)); ok && !alive(pid) {
		if !stillThere(path, fi, nil) {
			return // renamed into place as its writer exited, after the look above
		}
		c.add(Problem{Code: CodeDeadTemp, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("temporary of an atomic write left by process %d, which is no longer running", pid),
			Repair:  "remove it"})
		return
	}
	if age := c.opt.Now().Sub(fi.ModTime()); age > c.opt.StaleAfter {
		c.add(Problem{Code: CodeDeadTemp, Severity: Error, Path: c.rel(path), Offset: -1,
			Message: fmt.Sprintf("temporary of an atomic write left %s ago by a writer that is gone", age.Round(time.Second)),
			Repair:  "remove it"})
	}
}

// stillThere reports whether the file at path is still the one seen
// before its writer was found dead (the same file, and the same bytes
// when they were read). The look must come after the liveness check: a
// writer releases its lock or renames its temporary and then exits, so
// one found dead can no longer remove what is still there, while one
// that finished between the first look and the check had.
func stillThere(path string, seen os.FileInfo, data []byte) bool {
	fi, err := os.Lstat(path)
	if err != nil || !os.SameFile(seen, fi) {
		return false
	}
	if data == nil {
		return true
	}
	now, err := atomicfile.ReadRegular(path, 4096)
	return err == nil && bytes.Equal(now, data)
}
