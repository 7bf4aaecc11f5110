package atomicfile

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// An executable's temporary is created and written holding
// syscall.ForkLock for reading, so no child started meanwhile inherits it
// open for writing (which fails every exec of the file with ETXTBSY until
// the child execs); other files are not, and the lock is released. The
// hook sees the lock as the temporary is created. Not parallel: the hook
// is the process's.
func TestExecutableTemporaryIsNotOpenAcrossAFork(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		perm fs.FileMode
		held bool
	}{{0o755, true}, {0o700, true}, {0o644, false}} {
		var held []bool
		restore := SetBeforeCreate(func() {
			if syscall.ForkLock.TryLock() {
				syscall.ForkLock.Unlock()
				held = append(held, false)
			} else {
				held = append(held, true)
			}
		})
		path := filepath.Join(dir, "hook-"+c.perm.String())
		if err := Write(path, []byte("#!/bin/sh\n"), Options{Perm: c.perm, NoSync: true}); err != nil {
			t.Fatal(err)
		}
		st, err := Stage(path+"-staged", []byte("#!/bin/sh\n"), c.perm)
		if err != nil {
			t.Fatal(err)
		}
		st.Discard()
		restore()
		if len(held) != 2 || held[0] != c.held || held[1] != c.held {
			t.Errorf("mode %v: fork lock held at the write and the stage: %v, want %v", c.perm, held, c.held)
		}
		if !syscall.ForkLock.TryLock() {
			t.Fatalf("mode %v: the fork lock is still held after the write", c.perm)
		}
		syscall.ForkLock.Unlock()
	}
}
