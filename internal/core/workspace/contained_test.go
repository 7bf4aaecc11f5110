package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestCheckContained(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		link string // relative to the root; "" for none
		to   func(root, outside string) string
		ok   bool
	}{
		{"plain", "", nil, true},
		{".agentx outside", ".agentx", func(_, out string) string { return out }, false},
		{"state outside", ".agentx/state", func(_, out string) string { return out }, false},
		{"clarifications outside", ".agentx/state/clarifications", func(_, out string) string { return out }, false},
		{"memory outside", ".agentx/memory", func(_, out string) string { return out }, false},
		{"memory inside", ".agentx/memory", func(root, _ string) string { return filepath.Join(root, "mem") }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "mem"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.link != "" {
				p := filepath.Join(root, tt.link)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(tt.to(root, outside), p); err != nil {
					t.Fatal(err)
				}
			} else if err := os.MkdirAll(filepath.Join(root, ".agentx", "state"), 0o755); err != nil {
				t.Fatal(err)
			}
			err := Workspace{Root: root}.CheckContained()
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errcode.Is(err, errcode.CorruptState) {
				t.Fatalf("err = %v, want CORRUPT_STATE", err)
			}
		})
	}
}
