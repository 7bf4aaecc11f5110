package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// CheckFS finds in a tree what Check finds on disk.
func TestCheckFSMatchesCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr := &Trail{Dir: dir, Clock: clock.NewFake(time.Date(2026, 1, 31, 23, 0, 0, 0, time.UTC))}
	for i := 0; i < 3; i++ {
		if err := tr.Append(context.Background(), Entry{Actor: "a", Op: "memory.add"}); err != nil {
			t.Fatal(err)
		}
	}
	tr.Clock = clock.NewFake(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	for i := 0; i < 2; i++ {
		if err := tr.Append(context.Background(), Entry{Actor: "a", Op: "memory.add"}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `"actor":"a"`, `"actor":"b"`, 1))
	if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	rotated, err := os.ReadFile(filepath.Join(dir, RotatedName("2026-01")))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"state/audit.d/x/" + FileName:               {Data: data},
		"state/audit.d/x/" + RotatedName("2026-01"): {Data: rotated},
		"state/audit.d/x/notes.txt":                 {Data: []byte("x")},
		"state/audit.d/y/" + FileName:               {Data: data, Mode: os.ModeSymlink},
	}
	summary := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Code+" "+filepath.Base(f.Path))
		}
		return out
	}
	want, wantLines, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, lines, err := CheckFS(fsys, "state/audit.d/x")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(summary(got), summary(want)) || lines != wantLines || lines != 5 || len(got) != 1 {
		t.Errorf("CheckFS = %v (%d lines), Check = %v (%d lines)", summary(got), lines, summary(want), wantLines)
	}
	if got[0].Path != "state/audit.d/x/"+FileName {
		t.Errorf("path %q", got[0].Path)
	}
	if got, _, _ := CheckFS(fsys, "state/audit.d/y"); len(got) != 1 || got[0].Code != CodeUnreadable {
		t.Errorf("a symlink in the tree: %+v", got)
	}
	if got, lines, err := CheckFS(fsys, "state/none"); err != nil || lines != 0 || len(got) != 0 {
		t.Errorf("a missing directory: %v %d %v", got, lines, err)
	}
}
