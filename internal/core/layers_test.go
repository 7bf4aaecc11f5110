package core

import (
	"bufio"
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The layers this package's doc draws, keyed by its section headings.
const (
	protocolHalf = "Clarification protocol"
	memoryHalf   = "Memory pipeline"
	ground       = "Shared ground"
	across       = "Across both halves"
)

const modulePrefix = "github.com/agentx-dev/agentx/internal/core/"

// docMap reads doc.go's map: each bullet "//   - name: ..." under a
// "// # Section" heading places package name in that section.
func docMap(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	bullet := regexp.MustCompile(`^//   - ([a-z]+):`)
	section := ""
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if h, ok := strings.CutPrefix(line, "// # "); ok {
			section = h
			continue
		}
		if m := bullet.FindStringSubmatch(line); m != nil {
			out[m[1]] = section
		}
	}
	return out
}

// TestImportsFollowTheDocMap checks the house drawn from the imports
// against the one doc.go draws: every core package is on the map, the
// ground imports neither half nor what works across them, the halves
// never import each other, and nothing in the core imports a command,
// GitHub code or the terminal.
func TestImportsFollowTheDocMap(t *testing.T) {
	t.Parallel()
	where := docMap(t)
	for _, s := range []string{protocolHalf, memoryHalf, ground, across} {
		found := false
		for _, v := range where {
			found = found || v == s
		}
		if !found {
			t.Fatalf("doc.go has no package under %q: the map's headings changed", s)
		}
	}
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "testdata" {
			pkgs = append(pkgs, d.Name())
		}
	}
	sort.Strings(pkgs)
	for _, name := range pkgs {
		layer, ok := where[name]
		if !ok {
			t.Errorf("internal/core/%s is not on the map in doc.go", name)
			continue
		}
		p, err := build.ImportDir(filepath.Join(".", name), 0)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, imp := range p.Imports {
			checkImport(t, name, layer, imp, where)
		}
	}
}

func checkImport(t *testing.T, from, layer, imp string, where map[string]string) {
	t.Helper()
	for _, banned := range []string{"/internal/hookcmd", "/internal/actioncmd", "/internal/sync", "/internal/iostreams", "google/go-github", "golang.org/x/oauth2", "go-githubactions"} {
		if strings.Contains(imp, banned) {
			t.Errorf("core package %s imports %s", from, imp)
		}
	}
	rest, ok := strings.CutPrefix(imp, modulePrefix)
	if !ok {
		return
	}
	to, _, _ := strings.Cut(rest, "/")
	target := where[to]
	switch {
	case layer == ground && target != ground:
		t.Errorf("%s (shared ground) imports %s (%s): the ground imports neither half", from, to, target)
	case layer == protocolHalf && (target == memoryHalf || target == across),
		layer == memoryHalf && (target == protocolHalf || target == across):
		t.Errorf("%s (%s) imports %s (%s): the halves never import each other", from, layer, to, target)
	}
}
