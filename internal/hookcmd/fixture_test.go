package hookcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// A fixture is a directory tree that several tests start from, made once
// per test binary by the same real commands (git, agentx-hook processes)
// each test used to run itself, then copied into every test that asks for
// it: the copy is the test's own, as if it had made it. Building one per
// test cost a few dozen processes each time (issue 37).
type fixture struct {
	name  string
	build func(dir string) error
	once  sync.Once
	dir   string
	err   error
}

// fixturesDir holds the built fixtures; cleanupM removes it after the tests.
var fixturesDir struct {
	sync.Mutex
	path string
}

// copyTo copies the fixture, built on first use, into dst (created if
// missing; any file already there is an error, as os.CopyFS has it).
func (f *fixture) copyTo(t testing.TB, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(f.path(t))); err != nil {
		t.Fatalf("copy fixture %s: %v", f.name, err)
	}
}

// path is the fixture's directory, built on first use: read it, copy
// from it, never change it.
func (f *fixture) path(t testing.TB) string {
	t.Helper()
	dir, err := f.get()
	if err != nil {
		t.Fatalf("fixture %s: %v", f.name, err)
	}
	return dir
}

// get is path for a caller without a testing.TB (a script command).
func (f *fixture) get() (string, error) {
	f.once.Do(func() {
		fixturesDir.Lock()
		if fixturesDir.path == "" {
			fixturesDir.path, f.err = os.MkdirTemp("", "hookcmd-fixtures-")
		}
		base := fixturesDir.path
		fixturesDir.Unlock()
		if f.err != nil {
			return
		}
		f.dir = filepath.Join(base, f.name)
		if f.err = os.Mkdir(f.dir, 0o755); f.err == nil {
			f.err = f.build(f.dir)
		}
	})
	return f.dir, f.err
}

// removeFixtures removes every fixture built (from cleanupM, after the
// tests).
func removeFixtures() {
	fixturesDir.Lock()
	defer fixturesDir.Unlock()
	if fixturesDir.path != "" {
		_ = os.RemoveAll(fixturesDir.path)
	}
}

// buildTB is the testing.TB a fixture's build hands to the helpers tests
// use (gitRepo's run, agentx, appendFile): their Fatal panics with the
// failure, which buildWith returns as the build's error.
type buildTB struct {
	testing.TB
}

type buildFailure struct{ msg string }

func (buildTB) Helper() {}

func (buildTB) Fatal(args ...any) { panic(buildFailure{fmt.Sprint(args...)}) }

func (buildTB) Fatalf(format string, args ...any) { panic(buildFailure{fmt.Sprintf(format, args...)}) }

func (buildTB) Errorf(format string, args ...any) { panic(buildFailure{fmt.Sprintf(format, args...)}) }

// buildWith runs fn with a buildTB and returns its first failure.
func buildWith(fn func(tb testing.TB)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(buildFailure)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%s", f.msg)
		}
	}()
	fn(buildTB{})
	return nil
}
