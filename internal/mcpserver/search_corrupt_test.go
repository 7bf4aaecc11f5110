package mcpserver

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestSearchNamesAnIssueFileItCouldNotRead: an issue file that does not
// parse was skipped by memory_search with a word on the server's stderr
// only: the agent was told "no hits" (or given the other issues' hits)
// with no sign that part of the store was unreadable. The result now
// carries warnings naming the file, at every search while it stays
// broken (the store's Warn still says it on stderr); the other issues'
// hits stand and the file is left untouched.
func TestSearchNamesAnIssueFileItCouldNotRead(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	o := testOptions(t, ws, "engineer")
	var mu sync.Mutex
	var stderr []string
	o.Memory.Warn = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		stderr = append(stderr, format)
	}
	eng := connectWith(t, o, nil)
	ok(t, eng, "memory_remember", map[string]any{"content": "Sessions live in Redis.", "issue": 7})
	ok(t, eng, "memory_remember", map[string]any{"content": "Redis runs in a container.", "issue": 8})
	broken := []byte(`{"issueNumber": 7, "observations": [`)
	path := o.Memory.IssuePath(7)
	if err := os.WriteFile(path, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		res := ok(t, eng, "memory_search", map[string]any{"query": "redis"})
		warnings, _ := res["warnings"].([]any)
		if len(warnings) != 1 || !strings.Contains(warnings[0].(string), "issue-7.json") {
			t.Fatalf("search %d: warnings %v, want the broken issue file named", round+1, res["warnings"])
		}
		if !strings.Contains(fmt.Sprint(res["hits"]), "container") {
			t.Errorf("search %d: hits %v, want issue 8's", round+1, res["hits"])
		}
	}
	if got, _ := os.ReadFile(path); string(got) != string(broken) {
		t.Errorf("the broken issue file was rewritten: %s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stderr) == 0 {
		t.Error("nothing said on the server's stderr")
	}
}
