package gitexclude

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnsureAndRemoveKeepOthersLines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, before string }{
		{"no file", ""},
		{"git's template", "# git ls-files --others --exclude-from=.git/info/exclude\n# Lines that start with '#' are comments.\n"},
		{"no final newline", "*.log\n/build"},
		{"CRLF", "*.log\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "info", "exclude")
			if tt.before != "" {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(tt.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			const pat = "/.github/instructions/agentx-memory.instructions.md"
			if wrote, err := Ensure(dir, pat); err != nil || !wrote {
				t.Fatalf("Ensure: %v %v", wrote, err)
			}
			if wrote, err := Ensure(dir, pat); err != nil || wrote {
				t.Fatalf("Ensure again: wrote %v %v, want nothing to do", wrote, err)
			}
			if !Has(dir, pat) {
				t.Fatal("Has after Ensure: false")
			}
			if wrote, err := Remove(dir, pat); err != nil || !wrote {
				t.Fatalf("Remove: %v %v", wrote, err)
			}
			got, _ := os.ReadFile(p)
			want := tt.before
			if len(want) > 0 && want[len(want)-1] != '\n' {
				want += "\n" // Ensure ended the last line
			}
			if string(got) != want {
				t.Fatalf("after Ensure and Remove: %q, want %q", got, want)
			}
			if Has(dir, pat) {
				t.Fatal("Has after Remove: true")
			}
		})
	}
}
