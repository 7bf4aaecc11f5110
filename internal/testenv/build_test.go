package testenv

import (
	"os"
	"path/filepath"
	"testing"
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
