package hookcmd

import (
	"bytes"
	"context"
	"fmt"
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

// manifestMode sets [memory] manifest in the workspace's agentx.toml.
func manifestMode(t *testing.T, root, mode string) {
	t.Helper()
	path := filepath.Join(root, ".agentx", "agentx.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Replace(data, []byte("[memory]\n"), []byte("[memory]\nmanifest = \""+mode+"\"\n"), 1)
	if bytes.Equal(out, data) {
		t.Fatal("agentx.toml has no [memory] section")
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
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
// The manifest is kept only where asked for ("delta" here; the default
// writes none, and nothing in its store grows past the state limit).
func TestStorePastTheStateLimitStaysUsable(t *testing.T) {
	root, run := limitWorkspace(t)
	manifestMode(t, root, "delta")
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
// are written with: `memory generate` and `memory rebuild` (and every store
// write) refuse to pass it, naming it, rather than leave a store no command
// can read. Without a manifest (the default) the index is the one file that
// grows with the store; with one ("delta"), the manifest passes first.
func TestStoreWritesStopAtTheirReadLimit(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		limit int64 // under the largest derived file at 400 observations
	}{{"index", 16 << 10}, {"delta", 48 << 10}} {
		t.Run(tc.mode, func(t *testing.T) {
			root, run := limitWorkspace(t)
			manifestMode(t, root, tc.mode)
			lowerLimits(t, 16<<10, tc.limit)
			want := fmt.Sprintf("over the limit of %d bytes", tc.limit)
			code, _, stderr := run("memory", "generate", "--observations", "400", "--issues", "40", "--into-store")
			if code == 0 || !strings.Contains(stderr, want) {
				t.Fatalf("generate past the store limit: exit %d: %s", code, stderr)
			}
			readable(t, root)
			if code, _, stderr := run("memory", "rebuild"); code == 0 || !strings.Contains(stderr, want) {
				t.Fatalf("rebuild past the store limit: exit %d: %s", code, stderr)
			}
			readable(t, root)
			// What stays is usable: the issue files hold the observations
			// and a search finds them, though the index could not be written.
			if code, out, stderr := run("memory", "search", "token refresh"); code != 0 || out == "" {
				t.Fatalf("search: exit %d: %s%s", code, out, stderr)
			}
		})
	}
}

// Seed 000 §7.1 at scale (issue 35): at 50K observations the manifest (or
// what replaces it) under 3 MB and the store under 50 MB, 60 and 1,000
// bytes an observation, every file of .agentx/memory counted (anchors.idx
// included), scaled down to 2,000 observations at the bench's density (50
// an issue), after generate, a write and a rebuild. Before, the default
// wrote a manifest of 283 bytes an entry.
func TestStoreSizeAtTheSeedsBound(t *testing.T) {
	t.Parallel()
	const n = 2000
	root, run := limitWorkspace(t)
	dir := filepath.Join(root, ".agentx", "memory")
	for _, args := range [][]string{
		{"memory", "generate", "--observations", "2000", "--issues", "40", "--into-store"},
		{"memory", "add", "--agent", "engineer", "--issue", "7", "--category", "decision", "chose the ring buffer for the eviction cache layer"},
		{"memory", "rebuild"},
	} {
		if code, _, stderr := run(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var total, manifest int64
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			total += fi.Size()
			if d.Name() == "manifest.json" {
				manifest = fi.Size()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("after %v: manifest.json %d bytes, store %d bytes (%d an observation)", args[:2], manifest, total, total/n)
		if manifest > 60*n {
			t.Errorf("after %v: manifest.json %d bytes, over 60 an observation (3 MB at 50K)", args[:2], manifest)
		}
		if total > 1000*n {
			t.Errorf("after %v: the store is %d bytes, over 1,000 an observation (50 MB at 50K)", args[:2], total)
		}
	}
}
