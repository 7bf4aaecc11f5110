package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A binary is built once per content of the module: test files and
// testdata change nothing, any other file is a new build.
func TestSharedBinaryBuildsOncePerContent(t *testing.T) {
	mod, cache := t.TempDir(), t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(mod, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	write("main.go", "package main\n")
	builds := 0
	build := func(out string) error {
		builds++
		return os.WriteFile(out, []byte("binary"), 0o755)
	}
	get := func(how string) string {
		t.Helper()
		p, err := sharedBinary(mod, cache, "tool", how, build)
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != "binary" {
			t.Fatalf("%s: %q %v", p, b, err)
		}
		return p
	}
	first := get("go build")
	if get("go build") != first || builds != 1 {
		t.Fatalf("the same content built %d times", builds)
	}
	write("main_test.go", "package main\n")
	write("testdata/x.txt", "x")
	write(".git/HEAD", "ref")
	if get("go build") != first || builds != 1 {
		t.Fatalf("a test file, testdata or .git made a new build (%d builds)", builds)
	}
	if get("go build -cover") == first || builds != 2 {
		t.Fatalf("another way of building shared the binary (%d builds)", builds)
	}
	write("main.go", "package main // changed\n")
	if get("go build") == first || builds != 3 {
		t.Fatalf("changed source served from the cache (%d builds)", builds)
	}
	write("embedded/page.html", "<p>")
	get("go build")
	if builds != 4 {
		t.Fatalf("a new non-Go file (an embed) served from the cache (%d builds)", builds)
	}
}

// The cache keeps the entry in use and the sharedKeep most recently used
// others, none unused for a day.
func TestPruneSharedKeepsTheRecent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	now := time.Now()
	mk := func(name string, age time.Duration) string {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keep := mk("current", 48*time.Hour)
	for i := range sharedKeep + 2 {
		mk(fmt.Sprintf("recent%02d", i), time.Duration(i+1)*time.Minute)
	}
	mk("stale", 25*time.Hour)
	pruneShared(root, keep)
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	want := []string{"current"}
	for i := range sharedKeep {
		want = append(want, fmt.Sprintf("recent%02d", i))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("left %v, want %v", got, want)
	}
}

// Two test binaries that need the same binary at once build it once: the
// second waits for the first's build and takes its binary (a second copy
// of the suite linked agentx-hook and agentx-action twice after every
// edit).
func TestSharedBinaryConcurrentBuildsOnce(t *testing.T) {
	mod, cache := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var builds atomic.Int32
	second := make(chan error, 1)
	waiting := make(chan struct{})
	defer func() { buildWaits = nil }()
	buildWaits = func() { close(waiting) }
	build := func(out string) error {
		if builds.Add(1) == 1 {
			// While this build runs, another binary asks for the same one.
			go func() {
				_, err := sharedBinary(mod, cache, "tool", "go build", func(out string) error {
					builds.Add(1)
					return os.WriteFile(out, []byte("second"), 0o755)
				})
				second <- err
			}()
			select {
			case <-waiting:
			case err := <-second:
				t.Errorf("the second asker returned during the first build (err %v): it built its own", err)
				second <- err
			}
		}
		return os.WriteFile(out, []byte("first"), 0o755)
	}
	p, err := sharedBinary(mod, cache, "tool", "go build", build)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("built %d times", n)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "first" {
		t.Errorf("%s: %q %v", p, b, err)
	}
}
