package docscheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the module root, two levels above this package.
const repoRoot = "../../.."

// devOnly are references to files outside this repository that its
// developers had and its users do not.
var devOnly = regexp.MustCompile(`reference-formats\.md|\.\./shared/|/work/|shared/spec/`)

// walk calls fn for every file under the repository with one of exts,
// skipping .git and testdata.
func walk(t *testing.T, exts []string, fn func(path string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		for _, ext := range exts {
			if strings.HasSuffix(path, ext) {
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				fn(path, data)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestMarkdownLinks: a relative link resolves to a file or directory of
// the repository (issue 14: a link to a formats page that did not exist).
func TestMarkdownLinks(t *testing.T) {
	t.Parallel()
	walk(t, []string{".md"}, func(path string, data []byte) {
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(path), target)); err != nil {
				t.Errorf("%s: broken link %q", path, m[1])
			}
		}
		if loc := devOnly.FindIndex(data); loc != nil {
			t.Errorf("%s: names a file outside the repository: %q", path, data[loc[0]:loc[1]])
		}
	})
}

// goString is a Go string literal (interpreted or raw).
var goString = regexp.MustCompile("\"(?:[^\"\\\\\\n]|\\\\.)*\"|`[^`]*`")

// repoFile is a path of this repository's own files that a message might
// point a user at; the user's repository does not have them, so messages
// give the full URL instead.
var repoFile = regexp.MustCompile(`(^|[^/\w])(docs/[\w.-]+\.md|hooks/README\.md|reference-formats\.md)`)

// TestMessagesNameNoLocalDocs: the strings the binaries print (hints,
// errors, usage) never send a user to a file only the agentx repository
// or its developers have (issue 14).
func TestMessagesNameNoLocalDocs(t *testing.T) {
	t.Parallel()
	walk(t, []string{".go"}, func(path string, data []byte) {
		if strings.HasSuffix(path, "_test.go") {
			return
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, s := range goString.FindAllString(line, -1) {
				if m := repoFile.FindStringSubmatch(s); m != nil || devOnly.MatchString(s) {
					t.Errorf("%s:%d: a message names a file the user does not have: %s", path, i+1, s)
				}
			}
		}
	})
}
