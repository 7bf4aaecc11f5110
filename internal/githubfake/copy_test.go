package githubfake

import (
	"maps"
	"testing"
)

// TestCopyFromIsDeep: a copy holds the source's issues, comments, branch
// and permissions, and what is done to it afterwards leaves the source
// as it was (and the other way round).
func TestCopyFromIsDeep(t *testing.T) {
	src := New()
	defer src.Close()
	src.AddIssue(1)
	c := src.AddComment(1, "alice", "MEMBER", "hello")
	src.SetBranchFiles("agentx/state", map[string][]byte{"a.json": []byte("{}")}, "first")
	src.SetPermission("alice", "write")

	dst := New()
	defer dst.Close()
	dst.AddIssue(9)
	dst.CopyFrom(src)
	if _, ok := dst.Comment(c.ID); !ok {
		t.Fatal("the copy lacks the source's comment")
	}
	if got := dst.BranchFiles("agentx/state"); !maps.EqualFunc(got, map[string][]byte{"a.json": []byte("{}")}, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Fatalf("the copy's branch: %q", got)
	}
	if len(dst.Comments(9)) != 0 || dst.IssueLabels(9) != nil {
		t.Fatal("the copy kept its own issue 9")
	}

	dst.AddComment(1, "bob", "MEMBER", "again")
	dst.SetBranchFiles("agentx/state", map[string][]byte{"b.json": []byte("[]")}, "second")
	dst.SetPermission("alice", "read")
	if n := len(src.Comments(1)); n != 1 {
		t.Errorf("the source has %d comments on issue 1 after the copy's write, want 1", n)
	}
	if _, ok := src.BranchFile("agentx/state", "b.json"); ok {
		t.Error("the copy's branch commit reached the source")
	}
	if got := src.ext().permissions["alice"]; got != "write" {
		t.Errorf("the source's permission changed to %q", got)
	}
	src.AddComment(1, "carol", "MEMBER", "later")
	if n := len(dst.Comments(1)); n != 2 {
		t.Errorf("the copy has %d comments on issue 1, want 2", n)
	}
}
