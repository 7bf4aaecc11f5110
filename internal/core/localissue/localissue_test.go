package localissue

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"12.json":         `{"title":"Fix  the\nlogin","status":"open"}`,
		"issue-7.json":    `{"title":"Export","state":"closed"}`,
		"3.json":          `not json`,
		"notes.md":        `# not an issue`,
		"0.json":          `{}`,
		"issue-x.json":    `{}`,
		"issue-007b.json": `{}`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "9.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Issue{
		{Number: 12, Path: filepath.Join(dir, "12.json"), Title: "Fix the login", Status: "open"},
		{Number: 3, Path: filepath.Join(dir, "3.json"), Invalid: true},
		{Number: 7, Path: filepath.Join(dir, "issue-7.json"), Title: "Export", Status: "closed"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Read =\n%+v\nwant\n%+v", got, want)
	}
	if got, err := Read(filepath.Join(dir, "missing")); err != nil || got != nil {
		t.Fatalf("missing dir: %v, %v", got, err)
	}
}
