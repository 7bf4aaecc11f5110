package githooks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configRunner is a fake git whose config is a map.
type configRunner map[string]string

func (c configRunner) Git(_ context.Context, args ...string) (string, error) {
	switch {
	case len(args) == 2 && args[0] == "config":
		if v, ok := c[args[1]]; ok {
			return v + "\n", nil
		}
		return "", errors.New("exit status 1")
	case len(args) == 3 && args[0] == "config" && args[1] == "--remove-section":
		found := false
		for k := range c {
			if strings.HasPrefix(k, args[2]+".") {
				delete(c, k)
				found = true
			}
		}
		if !found {
			return "", errors.New("fatal: no such section")
		}
		return "", nil
	case len(args) == 3 && args[0] == "config":
		c[args[1]] = args[2]
		return "", nil
	}
	return "", errors.New("unexpected git " + strings.Join(args, " "))
}

const ourLines = "# agentx: semantic merge of state files (agentx-hook hooks install --merge-driver)\n" +
	".agentx/state/clarifications/issue-*.json merge=agentx\n" +
	".agentx/memory/issue-*.json merge=agentx\n" +
	".agentx/memory/archive/*.json merge=agentx\n" +
	".agentx/state/audit*.jsonl merge=union\n"

func TestAddAttributes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		added          int
	}{
		{"no file", "", ourLines, 4},
		{"the user's lines stay, a missing newline is added", "*.png binary", "*.png binary\n" + ourLines, 4},
		{"already there: unchanged", "*.go text\n" + ourLines, "*.go text\n" + ourLines, 0},
		{"one line missing", ourLines[:strings.LastIndex(ourLines[:len(ourLines)-1], "\n")+1],
			ourLines, 1},
		{"indented copies count as present", "  .agentx/memory/issue-*.json merge=agentx  \n",
			"  .agentx/memory/issue-*.json merge=agentx  \n# agentx: semantic merge of state files (agentx-hook hooks install --merge-driver)\n" +
				".agentx/state/clarifications/issue-*.json merge=agentx\n.agentx/memory/archive/*.json merge=agentx\n.agentx/state/audit*.jsonl merge=union\n", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, added := AddAttributes([]byte(tc.in))
			if string(out) != tc.want || len(added) != tc.added {
				t.Errorf("got %q (%d added), want %q (%d)", out, len(added), tc.want, tc.added)
			}
			again, more := AddAttributes(out)
			if string(again) != string(out) || len(more) != 0 {
				t.Errorf("not idempotent: %q", again)
			}
		})
	}
}

func TestRemoveAttributes(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"only ours", ourLines, ""},
		{"the user's lines stay byte for byte", "*.png binary\r\n" + ourLines + "# mine\n*.jpg -diff", "*.png binary\r\n# mine\n*.jpg -diff"},
		{"nothing of ours", "*.png binary\n", "*.png binary\n"},
		{"another driver on the same paths stays", ".agentx/memory/issue-*.json merge=union\n", ".agentx/memory/issue-*.json merge=union\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if out, _ := RemoveAttributes([]byte(tc.in)); string(out) != tc.want {
				t.Errorf("got %q, want %q", out, tc.want)
			}
		})
	}
}

func TestMergeDriverInstallUninstall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	attrs := filepath.Join(dir, ".gitattributes")
	if err := os.WriteFile(attrs, []byte("*.png binary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := configRunner{}

	st, err := MergeDriverState(ctx, git, attrs)
	if err != nil || st.Installed || len(st.Missing) != len(MergeAttributes()) {
		t.Fatalf("before install: %+v, %v", st, err)
	}
	st, err = InstallMergeDriver(ctx, git, attrs)
	if err != nil || !st.Installed || len(st.Changes) != 2 {
		t.Fatalf("install: %+v, %v", st, err)
	}
	if git["merge.agentx.driver"] != MergeDriverCommand || git["merge.agentx.name"] != MergeDriverLabel {
		t.Errorf("config %v", git)
	}
	if data, _ := os.ReadFile(attrs); string(data) != "*.png binary\n"+ourLines {
		t.Errorf(".gitattributes = %q", data)
	}
	st, err = InstallMergeDriver(ctx, git, attrs)
	if err != nil || !st.Installed || len(st.Changes) != 0 {
		t.Errorf("second install changed something: %+v, %v", st, err)
	}

	// Another command under our name is replaced, and said so.
	git["merge.agentx.driver"] = "old-tool %A"
	st, _ = InstallMergeDriver(ctx, git, attrs)
	if len(st.Changes) != 1 || !strings.Contains(st.Changes[0], `was "old-tool %A"`) {
		t.Errorf("changes %v", st.Changes)
	}

	st, err = UninstallMergeDriver(ctx, git, attrs)
	if err != nil || st.Installed || len(git) != 0 {
		t.Fatalf("uninstall: %+v, %v, config %v", st, err, git)
	}
	if data, _ := os.ReadFile(attrs); string(data) != "*.png binary\n" {
		t.Errorf(".gitattributes after uninstall = %q", data)
	}
	if st, err = UninstallMergeDriver(ctx, git, attrs); err != nil || len(st.Changes) != 0 {
		t.Errorf("second uninstall: %+v, %v", st, err)
	}

	// A .gitattributes we created alone is removed again.
	os.Remove(attrs)
	if _, err := InstallMergeDriver(ctx, git, attrs); err != nil {
		t.Fatal(err)
	}
	if _, err := UninstallMergeDriver(ctx, git, attrs); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(attrs); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".gitattributes left behind: %v", err)
	}
}
