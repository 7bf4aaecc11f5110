package hookcmd

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReleaseCarriesEveryBinaryHookRuns: agentx-hook runs agentx-mcp (mcp,
// --jq, --template) and agentx-view (view) and, when they are missing,
// says each release archive carries them; the release workflow's build
// loop must then build all three (it once left agentx-view out, so a
// release user's `agentx-hook view` could not work). Issue 37.
func TestReleaseCarriesEveryBinaryHookRuns(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*for bin in ([^;]+); do`).FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("release.yml has no `for bin in ...; do` build loop: update this test with the workflow")
	}
	bins := strings.Fields(m[1])
	for _, want := range []string{"agentx-hook", mcpBinary, viewBinary} {
		if !slices.Contains(bins, want) {
			t.Errorf("release.yml builds %v, not %s", bins, want)
		}
	}
}
