package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/hostsettings"
)

func TestCommand(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Claude: true}, "setup --claude"},
		{Options{Codex: true, Copilot: true, Agent: "reviewer", Check: true}, "setup --codex --copilot --agent reviewer"},
		{Options{Claude: true, Remove: true, NoGitHooks: true, DryRun: true}, "setup --claude --remove --no-git-hooks"},
	} {
		if got := tc.o.Command(); got != tc.want {
			t.Errorf("%+v.Command() = %q, want %q", tc.o, got, tc.want)
		}
	}
}

// TestPlanWriteRemove wires Claude Code into an empty root, then takes it
// out again: the plan is what Write does, and a re-plan changes nothing.
func TestPlanWriteRemove(t *testing.T) {
	root := t.TempDir()
	o := Options{Claude: true}
	plans, err := Plan(root, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plans {
		if f.Action != string(hostsettings.Created) || f.Diff == "" {
			t.Fatalf("plan = %+v, want created files with a diff", plans)
		}
	}
	if len(plans) == 0 {
		t.Fatal("empty plan, want the settings file created")
	}
	if err := Write(root, plans); err != nil {
		t.Fatal(err)
	}
	again, err := Plan(root, o)
	if err != nil {
		t.Fatal(err)
	}
	if r := (&Result{Files: again}); r.Pending() != 0 {
		t.Fatalf("re-plan = %+v, want nothing pending", again)
	}
	o.Remove = true
	plans, err = Plan(root, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(root, plans); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".claude")); !os.IsNotExist(err) {
		t.Errorf(".claude/ after --remove: %v, want it gone", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		o       Options
		wantErr string
	}{
		{Options{Claude: true}, ""},
		{Options{Codex: true, Agent: "reviewer"}, ""},
		{Options{}, "setup needs --claude, --codex or --copilot"},
		{Options{Claude: true, Remove: true, Agent: "reviewer"}, "setup --remove takes no --agent"},
		{Options{Claude: true, Agent: "Not An Agent!"}, "--agent"},
	} {
		err := tc.o.Validate()
		if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%+v.Validate() = %v, want %q", tc.o, err, tc.wantErr)
		}
	}
}
