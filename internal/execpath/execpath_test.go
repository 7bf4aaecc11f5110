package execpath

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentx-dev/agentx/internal/testenv"
)

func TestFindAndSame(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("executable bits")
	}
	empty, bin := t.TempDir(), t.TempDir()
	exe := filepath.Join(bin, "tool")
	if err := testenv.WriteExecutable(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, "tool"), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, name, want string
	}{
		{empty + string(os.PathListSeparator) + bin, "tool", exe},
		{bin, "other", ""},
		{empty, "tool", ""},
		{"", "tool", ""},
	} {
		if got := Find(tc.path, tc.name); got != tc.want {
			t.Errorf("Find(%q, %q) = %q, want %q", tc.path, tc.name, got, tc.want)
		}
	}
	if !Same(exe, filepath.Join(bin, ".", "tool")) || Same(exe, filepath.Join(empty, "tool")) || Same(exe, filepath.Join(bin, "missing")) {
		t.Error("Same disagrees with the files")
	}
}
