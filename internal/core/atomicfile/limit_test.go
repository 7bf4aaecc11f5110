package atomicfile

import (
	"path/filepath"
	"testing"
)

// The memory store's manifest and index are read with StoreLimit wherever
// their path is written from (absolute, from the workspace, from .agentx/
// as a state branch tree names it); every other state file keeps
// StateLimit, including files of those names elsewhere.
func TestLimitOf(t *testing.T) {
	for path, want := range map[string]int64{
		filepath.Join("/ws", ".agentx", "memory", "manifest.json"): StoreLimit,
		filepath.Join(".agentx", "memory", "search.idx"):           StoreLimit,
		"memory/manifest.json":                                     StoreLimit,
		"memory/issue-7.json":                                      StateLimit,
		"manifest.json":                                            StateLimit,
		filepath.Join("/ws", ".agentx", "state", "manifest.json"):  StateLimit,
		filepath.Join("/ws", ".agentx", "memory", "search.files"):  StateLimit,
	} {
		if got := LimitOf(path); got != want {
			t.Errorf("LimitOf(%q) = %d, want %d", path, got, want)
		}
	}
}
