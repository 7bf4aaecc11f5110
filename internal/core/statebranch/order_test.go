package statebranch

import (
	"slices"
	"testing"
)

// A hook's own issue is settled before everything else: a fresh clone's
// first pull, cut short by its budget, has brought that issue's ledger and
// memory before the thousands of other files.
func TestOwnIssueSettledFirst(t *testing.T) {
	t.Parallel()
	todo := []string{"memory/issue-1.json", "state/events.jsonl", "memory/issue-900.json",
		"state/clarifications/issue-1.json", "state/clarifications/issue-900.json", "memory/archive/issue-900.json"}
	own := func(p string) bool { return p == "memory/issue-900.json" || p == "state/clarifications/issue-900.json" }
	sortMerges(todo, own)
	want := []string{"memory/issue-900.json", "state/clarifications/issue-900.json",
		"state/clarifications/issue-1.json", "memory/issue-1.json", "memory/archive/issue-900.json", "state/events.jsonl"}
	if !slices.Equal(todo, want) {
		t.Fatalf("order %q, want %q", todo, want)
	}
	sortMerges(todo, nil)
	if todo[0] != "state/clarifications/issue-1.json" {
		t.Fatalf("without an issue: %q", todo)
	}
}
