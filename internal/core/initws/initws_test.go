package initws

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func TestSwitchMode(t *testing.T) {
	for _, tc := range []struct {
		name, in, mode, want string
	}{
		{"replaces the top-level line", "# mine\nmode = \"local\"\n[hooks]\n", "github", "# mine\nmode = \"github\"\n[hooks]\n"},
		{"adds a first line when there is none", "[hooks]\nmode = 'x'\n", "github", "mode = \"github\"\n[hooks]\nmode = 'x'\n"},
		{"single quotes", "mode = 'github'\n", "local", "mode = \"local\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "agentx.toml")
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			err := switchMode(path, tc.mode)
			got, _ := os.ReadFile(path)
			if err != nil || string(got) != tc.want {
				t.Errorf("switchMode = %v, file %q; want %q", err, got, tc.want)
			}
		})
	}
}

// TestRunKeeps creates a workspace, then runs again: every file is kept,
// and a mode switch updates only the config.
func TestRunKeeps(t *testing.T) {
	ws := workspace.Workspace{Root: t.TempDir()}
	actions := map[string]string{}
	report := func(action, path string) { actions[filepath.Base(path)] = action }
	mode, err := Run(ws, Options{}, report)
	if err != nil || mode != "local" {
		t.Fatalf("Run = %q, %v; want local", mode, err)
	}
	for _, f := range []string{"agentx.toml", ".gitignore", "AGENTS.md"} {
		if actions[f] != "created" {
			t.Errorf("%s: %q, want created", f, actions[f])
		}
	}
	clear(actions)
	if mode, err = Run(ws, Options{Mode: "github"}, report); err != nil || mode != "github" {
		t.Fatalf("second Run = %q, %v; want github", mode, err)
	}
	if actions["agentx.toml"] != "updated" || actions["AGENTS.md"] != "kept" || actions[".gitignore"] != "updated" {
		t.Errorf("second Run reported %v", actions)
	}
	gi, _ := os.ReadFile(ws.GitignoreFile())
	if !strings.Contains(string(gi), "state/") {
		t.Errorf(".gitignore after the switch to github mode:\n%s", gi)
	}
}

func TestTrackedLines(t *testing.T) {
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf(".agentx/state/f%d.json", i)
	}
	for _, tc := range []struct {
		name       string
		tracked    []string
		beforeSync bool
		n          int    // lines
		has        string // one of them
	}{
		{"none", nil, true, 0, ""},
		{"one after sync", []string{".agentx/state/a.json"}, false, 3 + len(UntrackCommands()), "  .agentx/state/a.json"},
		{"one before sync", []string{".agentx/state/a.json"}, true, 4 + len(UntrackCommands()), "Carry them to the state branch first (nothing is lost):\n  agentx-hook sync --init-from HEAD"},
		{"more than ten", many, false, 13 + len(UntrackCommands()), "  ... and 2 more (git ls-files -- .agentx/state .agentx/memory)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := Tracked{TrackedState: tc.tracked}.Lines(tc.beforeSync)
			if len(lines) != tc.n || (tc.has != "" && !slices.Contains(lines, tc.has)) {
				t.Errorf("Lines = %q", lines)
			}
		})
	}
}
