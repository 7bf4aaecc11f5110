package capture

import (
	"reflect"
	"strings"
	"testing"
)

func TestCommitContent(t *testing.T) {
	t.Parallel()
	many := "abc1234 Vendor\n\n"
	for i := 0; i < MaxCommitFiles+3; i++ {
		many += "A\tvendor/f" + strings.Repeat("x", i%3) + "\n"
	}
	tests := []struct {
		name, out, want string
		files           []string
	}{
		{"plain", "850dd3a Fix login redirect loop\n\nM\tauth/login.go\nA\tauth/login_test.go\n",
			"Commit 850dd3a: Fix login redirect loop. Files: M auth/login.go, A auth/login_test.go",
			[]string{"auth/login.go", "auth/login_test.go"}},
		{"rename", "1111111 Move it\n\nR100\told/a.go\tnew/a.go\n", "Commit 1111111: Move it. Files: R old/a.go -> new/a.go", []string{"new/a.go"}},
		{"no files (empty commit)", "2222222 Nothing\n", "Commit 2222222: Nothing", nil},
		{"nothing", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, files := CommitContent(tt.out)
			if got != tt.want || !reflect.DeepEqual(files, tt.files) {
				t.Errorf("CommitContent = %q %q, want %q %q", got, files, tt.want, tt.files)
			}
		})
	}
	got, files := CommitContent(many)
	if len(files) != MaxCommitFiles || !strings.HasSuffix(got, " and 3 more") {
		t.Errorf("many files: %d files, %q", len(files), got[len(got)-20:])
	}
}

func FuzzCommitContent(f *testing.F) {
	f.Add("850dd3a Fix\n\nM\ta.go\n")
	f.Add("x\n\nR100\ta\tb\n\t\n\nM\t\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, out string) {
		content, files := CommitContent(out)
		if len(files) > MaxCommitFiles {
			t.Errorf("%d files", len(files))
		}
		if content == "" && len(files) > 0 {
			t.Error("files without content")
		}
	})
}
