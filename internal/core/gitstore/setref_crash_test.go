package gitstore

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// SetRef must replace a ref file whole (write a new file, then rename it
// over the old one, as git's lock files do), never truncate it in place:
// a process killed between the truncation and the write leaves an empty
// ref file, and git then refuses to fetch or gc in that repository
// ("fatal: bad object refs/agentx/synced"). Found by
// internal/e2e/statesafety (a SIGKILL of `agentx-hook sync`, seed 1145).
// The test reads the old file through a descriptor opened before the
// update: a rename leaves it the old content, an in-place rewrite does not.
func TestSetRefReplacesTheFileWhole(t *testing.T) {
	root := t.TempDir()
	git(t, root, "init", "-q")
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	const name = "refs/agentx/synced"
	oldHash := plumbing.NewHash(strings.Repeat("1", 40))
	if err := r.SetRef(name, oldHash); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, ".git", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := r.SetRef(name, plumbing.NewHash(strings.Repeat("2", 40))); err != nil {
		t.Fatal(err)
	}
	seen, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(seen)) != oldHash.String() {
		t.Errorf("the ref file was rewritten in place (the old file now reads %q): a kill between its truncation and its write leaves it empty", seen)
	}
}
