package lock

import (
	"path/filepath"
	"strings"
	"testing"
)

// globEscape quotes what filepath.Glob would read as a pattern, and a
// quoted name matches itself only.
func TestGlobEscape(t *testing.T) {
	t.Parallel()
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	for _, name := range []string{"issue-7.json", "", `a\b*c?d[e]f`, "[[**??\\\\", "é*"} {
		if got, want := globEscape(name), r.Replace(name); got != want {
			t.Errorf("globEscape(%q) = %q, want %q", name, got, want)
		}
		if ok, err := filepath.Match(globEscape(name), name); !ok || err != nil {
			t.Errorf("%q: its escaped pattern does not match it (%v)", name, err)
		}
	}
}
