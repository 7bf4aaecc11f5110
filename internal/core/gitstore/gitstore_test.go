package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// The objects written here are the ones git writes for the same content:
// same ids, readable by git, and read back the same.
func TestObjectsMatchGit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	git(t, root, "init", "-q")
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("hello\n")
	h := BlobHash(data)
	if err := os.WriteFile(filepath.Join(root, "x"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(git(t, root, "hash-object", "x")); want != h.String() {
		t.Fatalf("BlobHash = %s, git says %s", h, want)
	}
	if err := r.StoreBlob(h, data); err != nil {
		t.Fatal(err)
	}
	if got := git(t, root, "cat-file", "blob", h.String()); got != "hello\n" {
		t.Fatalf("git reads %q", got)
	}
	files := map[string]Entry{
		"a.json": {Hash: h, Mode: filemode.Regular}, "dir/b.json": {Hash: h, Mode: filemode.Regular},
		"dir.x": {Hash: h, Mode: filemode.Regular}, "dir/sub/c": {Hash: h, Mode: filemode.Regular},
	}
	tree, err := r.WriteTree(files)
	if err != nil {
		t.Fatal(err)
	}
	// git mktree orders and hashes the same way.
	ls := git(t, root, "ls-tree", "-r", tree.String())
	if !strings.Contains(ls, "100644 blob "+h.String()+"\tdir/sub/c") || strings.Count(ls, "\n") != 4 {
		t.Fatalf("ls-tree:\n%s", ls)
	}
	back, err := r.Files(tree)
	if err != nil || len(back) != 4 || back["dir/sub/c"] != files["dir/sub/c"] {
		t.Fatalf("Files = %v, %v", back, err)
	}
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", -5*3600))
	c := Commit{Tree: tree, Author: Signature{Name: "agentx", Email: "agentx@localhost", When: when}, Message: "first\n\nbody\n"}
	ch, err := r.WriteCommit(c)
	if err != nil {
		t.Fatal(err)
	}
	c2 := Commit{Tree: tree, Parents: []plumbing.Hash{ch}, Author: c.Author, Message: "second\n"}
	ch2, err := r.WriteCommit(c2)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetRef("refs/agentx/test", ch2); err != nil {
		t.Fatal(err)
	}
	if out := git(t, root, "log", "--format=%an <%ae> %ad %s", "--date=iso", "refs/agentx/test"); out != "agentx <agentx@localhost> 2026-01-02 03:04:05 -0500 second\nagentx <agentx@localhost> 2026-01-02 03:04:05 -0500 first\n" {
		t.Fatalf("git log:\n%s", out)
	}
	git(t, root, "fsck", "--strict", "--no-dangling")
	got, err := r.ReadCommit(ch2)
	if err != nil || got.Tree != tree || len(got.Parents) != 1 || got.Parents[0] != ch || got.Message != "second\n" || !got.Author.When.Equal(when) {
		t.Fatalf("ReadCommit = %+v, %v", got, err)
	}
	if err := r.SwapRef("refs/agentx/test", ch, tree); err == nil {
		t.Fatal("SwapRef moved a ref that did not hold old")
	}
	if err := r.SwapRef("refs/agentx/test", ch, ch2); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Ref("refs/agentx/test"); got != ch {
		t.Fatalf("ref = %s", got)
	}
	// Packed by git gc, the objects are read through go-git.
	git(t, root, "gc", "-q", "--prune=now")
	if n := git(t, root, "count-objects"); !strings.HasPrefix(n, "0 objects") {
		t.Fatalf("not packed: %s", n)
	}
	r2, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := r2.Files(tree); err != nil || len(back) != 4 {
		t.Fatalf("packed tree: %v, %v", back, err)
	}
	if got, err := r2.Blob(h); err != nil || string(got) != "hello\n" {
		t.Fatalf("packed blob: %q, %v", got, err)
	}
	if !r2.Has(h) {
		t.Fatal("packed blob not found")
	}
}

// A damaged loose object is reported, never read as something else.
func TestCorruptLooseObject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	git(t, root, "init", "-q")
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("some content\n")
	h := BlobHash(data)
	if err := r.StoreBlob(h, data); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, ".git", "objects", h.String()[:2], h.String()[2:])
	raw, _ := os.ReadFile(p)
	_ = os.Chmod(p, 0o644)
	raw[len(raw)-1] ^= 0xff // the checksum
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Blob(h); !errcode.Is(err, errcode.CorruptState) {
		t.Fatalf("err = %v, want CORRUPT_STATE", err)
	}
}

// A large object is compressed in chunks on several processors: git and
// go-git read it back whole.
func TestLargeObjectParallelDeflate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	git(t, root, "init", "-q")
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; b.Len() < parallelMin+3*chunkSize+12345; i++ {
		fmt.Fprintf(&b, `{"id":"obs-%d","summary":"observation number %d of the store"},`, i, i*7919%100003)
	}
	data := []byte(b.String())
	h := BlobHash(data)
	if err := r.StoreBlob(h, data); err != nil {
		t.Fatal(err)
	}
	if got := git(t, root, "cat-file", "blob", h.String()); got != string(data) {
		t.Fatalf("git read %d bytes, want %d", len(got), len(data))
	}
	back, err := r.Blob(h)
	if err != nil || string(back) != string(data) {
		t.Fatalf("go-git read %d bytes: %v", len(back), err)
	}
	git(t, root, "fsck", "--strict")
}
