package hookcmd

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
)

// limitWorkspace is a git repository with an initialised workspace and a
// runner of in-process commands that returns the exit code.
func limitWorkspace(t *testing.T) (string, func(args ...string) (int, string, string)) {
	t.Helper()
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		a := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Cwd: root, rootFlag: root,
			Getenv: func(string) string { return "" }, Clock: clock.Real{}}
		return a.Run(context.Background(), args), out.String(), errb.String()
	}
	if code, _, stderr := run("init"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	return root, run
}

// lowerLimits sets the read limits for one test: tests that change them
// are not parallel, so no other test reads under them.
func lowerLimits(t *testing.T, state, store int64) {
	oldState, oldStore := atomicfile.StateLimit, atomicfile.StoreLimit
	atomicfile.StateLimit, atomicfile.StoreLimit = state, store
	t.Cleanup(func() { atomicfile.StateLimit, atomicfile.StoreLimit = oldState, oldStore })
}

// readable fails the test for any file under .agentx/ larger than agentx
// then accepts to read: nothing written may exceed what is read.
func readable(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(root, ".agentx"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() > atomicfile.LimitOf(p) {
			t.Errorf("%s is %d bytes, over its read limit of %d", p, fi.Size(), atomicfile.LimitOf(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The cliff of issue 35, scaled down: a manifest past the limit every
// other state file keeps (256 MB, reached at about 730K observations)
// leaves the store usable. Before, `memory add` failed on it (CORRUPT_STATE),
// `search` missed what was added, `checkpoint create` failed (IO_ERROR),
// `verify` called the manifest unreadable and `rebuild` took no checkpoint.
func TestStorePastTheStateLimitStaysUsable(t *testing.T) {
	root, run := limitWorkspace(t)
	lowerLimits(t, 64<<10, atomicfile.StoreLimit)
	if code, _, stderr := run("memory", "generate", "--observations", "400", "--issues", "40", "--into-store"); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	manifest := filepath.Join(root, ".agentx", "memory", "manifest.json")
	fi, err := os.Stat(manifest)
	if err != nil || fi.Size() <= atomicfile.StateLimit {
		t.Fatalf("the manifest should be past the state limit of %d bytes: %v %v", atomicfile.StateLimit, fi, err)
	}
	for _, args := range [][]string{
		{"memory", "add", "--agent", "engineer", "--issue", "7", "--category", "decision", "chose the ring buffer for the eviction cache layer"},
		{"memory", "search", "ring buffer eviction"},
		{"memory", "stats"},
		{"checkpoint", "create", "-m", "past the limit"},
		{"verify"},
		{"memory", "rebuild"},
	} {
		code, out, stderr := run(args...)
		if code != 0 || strings.Contains(stderr, "too large") {
			t.Fatalf("%v: exit %d\nstdout %s\nstderr %s", args, code, out, stderr)
		}
		if len(args) > 1 && args[1] == "search" && !strings.Contains(out, "ring buffer") {
			t.Fatalf("the observation just added is not found: %s", out)
		}
	}
	// Without its index a search reads the whole manifest (the slow path
	// of a store another tool wrote): past the state limit too.
	if err := os.Remove(filepath.Join(root, ".agentx", "memory", "search.idx")); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := run("memory", "search", "ring buffer eviction"); code != 0 || !strings.Contains(out, "ring buffer") || strings.Contains(stderr, "too large") {
		t.Fatalf("search without the index: exit %d: %s%s", code, out, stderr)
	}
	readable(t, root)
}

// The limit the manifest and search index are read with is the limit they
// are written with: `memory generate` (and every store write) refuses to
// pass it, naming it, rather than leave a store no command can read.
func TestStoreWritesStopAtTheirReadLimit(t *testing.T) {
	root, run := limitWorkspace(t)
	lowerLimits(t, 16<<10, 48<<10)
	code, _, stderr := run("memory", "generate", "--observations", "400", "--issues", "40", "--into-store")
	if code == 0 || !strings.Contains(stderr, "over the limit of 49152 bytes") {
		t.Fatalf("generate past the store limit: exit %d: %s", code, stderr)
	}
	readable(t, root)
	// What stays is usable: the issue files hold the observations and a
	// search finds them, though the manifest could not be written.
	if code, out, stderr := run("memory", "search", "token refresh"); code != 0 || out == "" {
		t.Fatalf("search: exit %d: %s%s", code, out, stderr)
	}
}
