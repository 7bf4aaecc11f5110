package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Refs read without go-git's storage read as it read them: packed, loose
// over packed, an empty loose file passed over for its packed copy,
// symbolic refs followed; removing a packed ref rewrites packed-refs
// without it and its peeled line, and git agrees (go-git's left the
// peeled line, which then read as the peel of the ref before it).
func TestRefsPackedSymbolicAndRemoved(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	c1, c2 := commitOf(t, r, 1), commitOf(t, r, 2)
	for _, name := range []string{"refs/agentx/a", "refs/agentx/b"} {
		if err := r.SetRef(name, c1); err != nil {
			t.Fatal(err)
		}
	}
	git(t, r.Top, "-c", "user.name=a", "-c", "user.email=a@b", "tag", "-a", "-m", "v1", "v1", c1.String())
	git(t, r.Top, "pack-refs", "--all")
	if got, err := r.Ref("refs/agentx/a"); err != nil || got != c1 {
		t.Fatalf("packed ref = %s, %v", got, err)
	}
	if err := r.SetRef("refs/agentx/b", c2); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Ref("refs/agentx/b"); got != c2 {
		t.Fatalf("loose over packed = %s, want %s", got, c2)
	}
	if err := os.WriteFile(filepath.Join(r.CommonDir, "refs", "agentx", "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Ref("refs/agentx/a"); err != nil || got != c1 {
		t.Fatalf("empty loose over packed = %s, %v", got, err)
	}
	git(t, r.Top, "symbolic-ref", "refs/agentx/sym", "refs/agentx/b")
	if got, err := r.Ref("refs/agentx/sym"); err != nil || got != c2 {
		t.Fatalf("symbolic ref = %s, %v", got, err)
	}
	if got, err := r.Ref("refs/agentx/none"); err != nil || !got.IsZero() {
		t.Fatalf("missing ref = %s, %v", got, err)
	}
	if got, err := r.Resolve("v1"); err != nil || got != c1 {
		t.Fatalf("Resolve(annotated packed tag) = %s, %v", got, err)
	}
	if _, err := r.Ref("refs/agentx/../../HEAD"); err == nil {
		t.Fatal("a ref name escaping refs/ was read")
	}
	if err := os.Remove(filepath.Join(r.CommonDir, "refs", "agentx", "a")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"refs/tags/v1", "refs/agentx/a", "refs/agentx/missing"} {
		if err := r.RemoveRef(name); err != nil {
			t.Fatalf("RemoveRef(%s): %v", name, err)
		}
	}
	packed, _ := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if strings.Contains(string(packed), "refs/tags/v1") || strings.Contains(string(packed), "^") || strings.Contains(string(packed), "refs/agentx/a") {
		t.Fatalf("packed-refs still names a removed ref:\n%s", packed)
	}
	if out := git(t, r.Top, "for-each-ref", "--format=%(refname)"); out != "refs/agentx/b\nrefs/agentx/sym\n" {
		t.Fatalf("git for-each-ref after removal:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "packed-refs.lock")); err == nil {
		t.Fatal("packed-refs.lock left behind")
	}
}

// Objects of an alternate object database (git clone --shared), packed
// or loose, are read as git reads them (go-git's storage made the
// absolute path git writes relative to the repository and found none).
func TestAlternates(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	packedBlob, err := src.WriteBlob([]byte("packed\n"))
	if err != nil {
		t.Fatal(err)
	}
	c1 := commitOf(t, src, 1)
	if err := src.SetRef("refs/agentx/keep", c1); err != nil {
		t.Fatal(err)
	}
	git(t, src.Top, "tag", "keep-blob", packedBlob.String())
	git(t, src.Top, "gc", "-q", "--prune=now")
	looseBlob, err := src.WriteBlob([]byte("loose\n"))
	if err != nil {
		t.Fatal(err)
	}
	dst := newRepo(t)
	alt := filepath.Join(dst.CommonDir, "objects", "info", "alternates")
	if err := os.WriteFile(alt, []byte(filepath.Join(src.CommonDir, "objects")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for h, want := range map[Hash]string{packedBlob: "packed\n", looseBlob: "loose\n"} {
		if got, err := dst.Blob(h); err != nil || string(got) != want {
			t.Errorf("Blob(%s) through the alternate = %q, %v", h, got, err)
		}
	}
	if c, err := dst.ReadCommit(c1); err != nil || c.Message != "c1\n" {
		t.Errorf("ReadCommit through the alternate = %+v, %v", c, err)
	}
	// Two databases naming each other end, they do not loop.
	back := filepath.Join(src.CommonDir, "objects", "info", "alternates")
	if err := os.WriteFile(back, []byte(filepath.Join(dst.CommonDir, "objects")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Blob(BlobHash([]byte("nowhere\n"))); err == nil {
		t.Error("a missing object was found")
	}
}
