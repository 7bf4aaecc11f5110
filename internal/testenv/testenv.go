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
	"os"
	"strings"
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
// $TMPDIR stays as it is and the cleanup does nothing.
func UseRAMTempDir() (cleanup func()) {
	parent := os.Getenv(Env)
	switch {
	case parent == "off":
		return func() {}
	case parent == "" && usableRAMDir(ramDir):
		parent = ramDir
	case parent == "":
		return func() {}
	}
	dir, err := os.MkdirTemp(parent, "agentx-test-")
	if err != nil {
		return func() {} // the default temporary directory still works
	}
	_ = os.Setenv("TMPDIR", dir)
	return func() { _ = os.RemoveAll(dir) }
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
