// Package testenv owns the environment a test binary runs in. Test support
// only.
//
// The suite creates and deletes tens of thousands of small files (git
// objects, ledgers, workspaces made and removed per test). On ext4 each new
// inode after many deletions costs a scan for one not recently freed, which
// made about half of the suite's CPU time kernel time. A RAM filesystem has
// the same rename, lock and permission semantics the tests rely on, without
// that cost, so test binaries put their temporary directories there when
// the machine has one they may use.
package testenv

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/process"
)

// Env is the variable that chooses the temporary directory's parent:
// unset picks a RAM filesystem when there is one, "off" keeps $TMPDIR as
// it is, anything else is a directory to use.
const Env = "AGENTX_TEST_TMPDIR"

// ramDir is the RAM filesystem looked for on Linux.
const ramDir = "/dev/shm"

// Main runs the tests of m with $TMPDIR on a RAM filesystem (UseRAMTempDir)
// and returns m's exit code.
func Main(m interface{ Run() int }) int {
	cleanup := UseRAMTempDir()
	defer cleanup()
	return m.Run()
}

// UseRAMTempDir points $TMPDIR at a directory of its own on a RAM
// filesystem (see Env) and returns what removes it. Where there is none,
// $TMPDIR stays as it is and the cleanup does nothing. A test binary that
// its own tests start again (a helper process, a writer to kill) inherits
// its parent's directory instead of making one it might die before
// removing; directories of test binaries that were killed are removed by
// the next one.
func UseRAMTempDir() (cleanup func()) {
	if os.Getenv(dirEnv) != "" {
		return func() {} // a child of a test binary: its parent's TMPDIR
	}
	parent := os.Getenv(Env)
	switch {
	case parent == "off":
		return func() {}
	case parent == "" && usableRAMDir(ramDir):
		parent = ramDir
	case parent == "":
		return func() {}
	}
	removeOrphans(parent)
	dir, err := os.MkdirTemp(parent, fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return func() {} // the default temporary directory still works
	}
	_ = os.Setenv("TMPDIR", dir)
	_ = os.Setenv(dirEnv, dir)
	return func() { _ = os.RemoveAll(dir) }
}

// dirEnv names the directory a test binary made, for the processes it
// starts; dirPrefix begins its name, followed by the binary's pid.
const (
	dirEnv    = "AGENTX_TESTENV_DIR"
	dirPrefix = "agentx-test-"
)

// removeOrphans removes the directories in parent of test binaries that
// are gone (killed, or interrupted before their cleanup).
func removeOrphans(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), dirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || process.Alive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(parent, e.Name()))
	}
}

// usableRAMDir says whether dir is a writable tmpfs mount that allows
// executables: tests install binaries in their temporary directories and
// start them.
func usableRAMDir(dir string) bool {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[1] != dir || fields[2] != "tmpfs" {
			continue
		}
		for _, opt := range strings.Split(fields[3], ",") {
			if opt == "noexec" || opt == "ro" {
				return false
			}
		}
		probe, err := os.MkdirTemp(dir, ".agentx-probe-")
		if err != nil {
			return false
		}
		_ = os.Remove(probe)
		return true
	}
	return false
}

// RaiseParallel sets go test's -parallel, unless the command line gave
// it, to factor times GOMAXPROCS. The default (GOMAXPROCS) suits tests
// that keep a core busy; a package whose tests mostly wait (on child
// processes, on a hook's deadline, on a lock another process holds)
// leaves the cores idle with only that many running, and its wall time
// is then the sum of its waits. Call it from TestMain before m.Run.
func RaiseParallel(factor int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given || flag.Lookup("test.parallel") == nil {
		return
	}
	_ = flag.Set("test.parallel", strconv.Itoa(factor*runtime.GOMAXPROCS(0)))
}
