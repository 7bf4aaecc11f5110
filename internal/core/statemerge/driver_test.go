package statemerge

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAgentxRelative(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{".agentx/state/clarifications/issue-1.json", "state/clarifications/issue-1.json", true},
		{"sub/dir/.agentx/memory/issue-2.json", "memory/issue-2.json", true},
		{"notagentx/memory/issue-2.json", "", false},
	} {
		got, ok := agentxRelative(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("agentxRelative(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDriverLeavesOurs checks a refused merge leaves OURS as it was.
func TestDriverLeavesOurs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"base": "", "ours": "{not json", "theirs": "{}"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"README.md", ".agentx/state/clarifications/issue-1.json"} {
		if _, err := Driver(filepath.Join(dir, "base"), filepath.Join(dir, "ours"), filepath.Join(dir, "theirs"), path); err == nil {
			t.Errorf("Driver(%s) merged, want an error", path)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "ours")); string(got) != files["ours"] {
			t.Errorf("Driver(%s) wrote ours: %q", path, got)
		}
	}
}
