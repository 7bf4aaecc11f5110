package config

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestDefaultConfigPointsAtDocsThatExist: the comments init writes into a
// user's agentx.toml name documentation; each named file must exist in
// this repository (issue 21: the config said "See README.md" of a
// repository that has none).
func TestDefaultConfigPointsAtDocsThatExist(t *testing.T) {
	t.Parallel()
	refs := regexp.MustCompile(`docs/[a-z-]+\.md`)
	for name, data := range DefaultFiles() {
		found := refs.FindAllString(string(data), -1)
		if name == "agentx.toml" && len(found) == 0 {
			t.Errorf("agentx.toml names no documentation for its keys")
		}
		for _, doc := range found {
			if _, err := os.Stat(filepath.Join("..", "..", "..", doc)); err != nil {
				t.Errorf("%s names %s: %v", name, doc, err)
			}
		}
	}
}
