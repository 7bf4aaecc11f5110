package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SharedBinary returns the path of a binary of this module built by
// build, from a cache every test binary and every run of the suite share:
// the end-to-end packages that start agentx-hook or agentx-action as a
// real process build it once per content of the module, not once each
// per run (linking agentx-hook costs about half a CPU-second and two
// seconds of a loaded machine's wall, and a second copy of the suite
// beside the first would link it again).
//
// The key is the content of every file of the module a build can read
// (test files and testdata aside), the Go toolchain and the environment
// that changes what it builds (GOFLAGS, CGO_ENABLED, GOOS, GOARCH,
// GOEXPERIMENT, GOAMD64), name, and how (a description of build's
// command and flags the caller chooses). An edit anywhere in the module
// is a new key, so a cached binary never stands in for changed code.
//
// build writes the binary to the path it is given; SharedBinary renames
// it into place, so a reader never sees half a file. Test binaries that
// need the same key at once build it once: the others wait on the key's
// lock and take its binary (where there is no lock, each builds and the
// last rename wins with identical content). Old entries are pruned
// (pruneShared).
func SharedBinary(name, how string, build func(out string) error) (string, error) {
	mod, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("shared build of %s: %w", name, err)
	}
	return sharedBinary(mod, sharedBuildDir(), name, how, build)
}

// sharedBinary is SharedBinary for the module at mod and the cache at root.
func sharedBinary(mod, root, name, how string, build func(out string) error) (string, error) {
	key, err := buildKey(mod, name, how)
	if err != nil {
		return "", fmt.Errorf("shared build of %s: %w", name, err)
	}
	dir := filepath.Join(root, key)
	path := filepath.Join(dir, name)
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		now := time.Now()
		_ = os.Chtimes(dir, now, now) // used: kept by pruneShared
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("shared build of %s: %w", name, err)
	}
	// One build per key at a time: a test binary that finds another
	// building it waits, then takes its binary.
	if unlock, err := lockBuild(filepath.Join(dir, ".build.lock")); err == nil {
		defer unlock()
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			return path, nil
		}
	}
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.%d.tmp", name, os.Getpid()))
	if err := build(tmp); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("build %s: %w", name, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("shared build of %s: %w", name, err)
	}
	pruneShared(root, dir)
	return path, nil
}

// buildWaits, when set, is called by a caller that found another build
// of the same key under way and waits for it (a test's hook).
var buildWaits func()

// SharedBuildEnv names a directory for SharedBinary's cache (default: the
// user's cache directory, as GOCACHE's, else the temporary directory).
const SharedBuildEnv = "AGENTX_TEST_BINCACHE"

func sharedBuildDir() string {
	if d := os.Getenv(SharedBuildEnv); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "agentx", "testbin")
	}
	// UseRAMTempDir may have pointed TMPDIR at a directory of this test
	// binary's own: the cache lives beside it, in the parent.
	tmp := os.TempDir()
	if own := os.Getenv(dirEnv); own != "" {
		tmp = filepath.Dir(own)
	}
	return filepath.Join(tmp, "agentx-testbin")
}

// buildKey hashes what SharedBinary's key is made of.
func buildKey(root, name, how string) (string, error) {
	h := sha256.New()
	out, err := exec.CommandContext(context.Background(), "go", "env", "GOVERSION", "GOFLAGS", "CGO_ENABLED", "GOOS", "GOARCH", "GOEXPERIMENT", "GOAMD64").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	fmt.Fprintf(h, "%s\n%q\n%q\n%s\n", out, name, how, os.Getenv("GOFLAGS"))
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(base, ".") || base == "testdata" || base == "node_modules" || base == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(base, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		n, err := io.Copy(h, f)
		fmt.Fprintf(h, "\x00%d\n", n)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hash the module: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// moduleRoot is the directory of the go.mod above the working directory
// (a test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// pruneShared removes the cache's entries other than keep that were not
// used for a day, and all but the sharedKeep most recently used: every
// edit of the module is a new key (about 10 MB each for the two
// binaries), and a day of commits made 130 MB. Best effort: another test
// binary may be using an entry right now; it then builds it again.
func pruneShared(root, keep string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	type entry struct {
		path string
		used time.Time
	}
	var old []entry
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		if p == keep || !e.IsDir() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			old = append(old, entry{p, fi.ModTime()})
		}
	}
	sort.Slice(old, func(i, j int) bool { return old[i].used.After(old[j].used) })
	for i, e := range old {
		if i >= sharedKeep || time.Since(e.used) > 24*time.Hour {
			_ = os.RemoveAll(e.path)
		}
	}
}

// sharedKeep is how many other keys pruneShared keeps: a second checkout
// or a branch switched back to finds its binary. Each content of the
// module is two keys (agentx-hook and agentx-action), and a machine with
// several checkouts testing at once (a second copy of the suite, or
// worktrees of other branches) uses two per checkout: with 4, five
// checkouts evicted each other's binaries and every run linked them
// again (agentx-action's package took 12 s instead of 2, issue 37).
// Twelve is six checkouts, about 120 MB at most, and none stays unused
// past a day.
const sharedKeep = 12

// GoBuild is a SharedBinary build step: go build -o out with args (flags
// and the package), the command's output on stderr.
func GoBuild(args ...string) func(out string) error {
	return func(out string) error {
		cmd := exec.CommandContext(context.Background(), "go", append([]string{"build", "-o", out}, args...)...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		return cmd.Run()
	}
}
