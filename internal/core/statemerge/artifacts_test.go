package statemerge

import (
	"strings"
	"testing"
)

// Two clones record different artifacts of one issue: the state branch's
// merge keeps both (it is artifact.Merge behind MergeFile).
func TestArtifactLedgersMergeAsAUnion(t *testing.T) {
	t.Parallel()
	if ok, n := Classify("state/artifacts/issue-42.json"); !ok || n != 42 {
		t.Fatalf("Classify = %v %d", ok, n)
	}
	ours := []byte(`{"issueNumber": 42, "artifacts": [{"id": "PRD-42", "blob": "b1", "created": "1", "updated": "1", "status": "draft"}]}`)
	theirs := []byte(`{"issueNumber": 42, "artifacts": [{"id": "SPEC-42", "blob": "s1", "created": "2", "updated": "2", "status": "draft"}]}`)
	merged, _, err := MergeFile("state/artifacts/issue-42.json", nil, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(merged), `"PRD-42"`) || !strings.Contains(string(merged), `"SPEC-42"`) {
		t.Fatalf("merged = %s", merged)
	}
	if _, _, err := MergeFile("state/artifacts/issue-42.json", nil, ours, []byte("{")); err == nil {
		t.Fatal("a side that does not parse merged")
	}
}
