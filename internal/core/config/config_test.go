package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

const referenceWorkflow = `name = "feature"

[[steps]]
id = "implement"
title = "Implement code and tests"
agent = "engineer"
needs = ["architecture"]
can_clarify = ["architect", "product-manager"]
clarify_max_rounds = 3
clarify_sla_minutes = 60
clarify_blocking_allowed = true
iterate = true
max_iterations = 4
completion_criteria = "tests pass"
status_on_start = "In Progress"

[[steps]]
id = "review"
agent = "reviewer"
`

func TestWorkflowFieldsAndDefaults(t *testing.T) {
	t.Parallel()
	w, err := ParseWorkflow("feature.toml", []byte(referenceWorkflow))
	if err != nil {
		t.Fatal(err)
	}
	impl := w.Steps[0].Scope("feature", true)
	if impl.MaxRounds != 3 || impl.SLA != time.Hour || !impl.BlockingAllowed || !impl.Allows("architect") || impl.Allows("reviewer") {
		t.Errorf("implement scope = %+v", impl)
	}
	rev := w.Steps[1].Scope("feature", true)
	if rev.MaxRounds != 5 || rev.SLA != 30*time.Minute || !rev.BlockingAllowed || len(rev.CanClarify) != 0 {
		t.Errorf("defaults (blocking) = %+v", rev)
	}
	if nb := w.Steps[1].Scope("feature", false); nb.MaxRounds != 6 {
		t.Errorf("non-blocking default rounds = %d", nb.MaxRounds)
	}
}

func TestBadTOMLIsCorruptStateWithPosition(t *testing.T) {
	t.Parallel()
	_, err := ParseWorkflow("/w/bug.toml", []byte("name = \"bug\"\n[[steps]\nid = 1\n"))
	if !errcode.Is(err, errcode.CorruptState) {
		t.Fatalf("got %v", err)
	}
	if got := err.Error(); !strings.Contains(got, "/w/bug.toml") || !strings.Contains(got, "(line ") {
		t.Errorf("message lacks file/line: %s", got)
	}
}

func TestResolveScope(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wfDir := filepath.Join(dir, "workflows")
	for name, content := range DefaultFiles() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := Load(filepath.Join(dir, "agentx.toml"), wfDir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                  string
		workflow, step, agent string
		blocking              bool
		wantStep              string
		wantCode              errcode.Code
	}{
		{"default workflow, requester's step", "", "", "engineer", true, "implement", ""},
		{"explicit workflow", "bug", "", "engineer", true, "fix", ""},
		{"explicit step", "feature", "review", "reviewer", false, "review", ""},
		{"step of another agent", "feature", "review", "engineer", true, "", errcode.ScopeViolation},
		{"agent without a step", "bug", "", "architect", true, "", errcode.ScopeViolation},
		{"unknown workflow", "nope", "", "engineer", true, "", errcode.InvalidInput},
		{"unknown step", "bug", "nope", "engineer", true, "", errcode.InvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := set.ResolveScope(tt.workflow, tt.step, tt.agent, tt.blocking)
			if tt.wantCode != "" {
				if !errcode.Is(err, tt.wantCode) {
					t.Fatalf("got %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil || sc.Step != tt.wantStep {
				t.Fatalf("got %+v, %v", sc, err)
			}
		})
	}
	known := set.KnownAgents()
	for _, a := range []string{"engineer", "architect", "product-manager", "reviewer", "tester", "ux-designer"} {
		if !known[a] {
			t.Errorf("%s not known", a)
		}
	}
}

func FuzzParseWorkflow(f *testing.F) {
	f.Add([]byte(referenceWorkflow))
	f.Add([]byte("name = 1\n"))
	f.Add([]byte("[[steps]]\nclarify_max_rounds = -1\nclarify_sla_minutes = 99999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkflow("f.toml", data)
		if err != nil {
			if !errcode.Is(err, errcode.CorruptState) {
				t.Fatalf("error is not CORRUPT_STATE: %v", err)
			}
			return
		}
		for _, s := range w.Steps {
			sc := s.Scope(w.Name, true)
			if sc.MaxRounds < 1 || sc.SLA <= 0 {
				t.Fatalf("scope out of range: %+v", sc)
			}
		}
	})
}

func TestLimitsAndHooksSections(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig("agentx.toml", []byte("[limits]\ninput_file = \"1KB\"\ntranscript = 2048\n[hooks]\ndeadline = \"3s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 || c.Limits.InputFileBytes() != 1024 || c.Limits.Transcript != 2048 || c.Hooks.DeadlineOr() != 3*time.Second {
		t.Fatalf("%+v", c)
	}
	var zero Config
	if zero.Limits.InputFileBytes() != 10<<20 || zero.Hooks.DeadlineOr() != DefaultHookDeadline {
		t.Fatalf("defaults: %d %v", zero.Limits.InputFileBytes(), zero.Hooks.DeadlineOr())
	}
	for _, bad := range []string{`input_file = "lots"`, `input_file = -1`, `input_file = "0MB"`, `input_file = true`} {
		if _, err := ParseConfig("agentx.toml", []byte("[limits]\n"+bad+"\n")); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	for in, want := range map[string]int64{"10MB": 10 << 20, "512 kb": 512 << 10, "1GiB": 1 << 30, "77": 77, "3B": 3} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

// [github] sync_timeout loads without a warning; unset, the default.
func TestGitHubSyncTimeout(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig("agentx.toml", []byte("mode = \"github\"\n[github]\nsync_budget = \"2s\"\nsync_timeout = \"45s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 || c.GitHub.SyncTimeoutOr() != 45*time.Second || c.GitHub.SyncBudget.Duration != 2*time.Second {
		t.Fatalf("%+v", c)
	}
	var zero Config
	if zero.GitHub.SyncTimeoutOr() != DefaultSyncTimeout {
		t.Fatalf("default: %v", zero.GitHub.SyncTimeoutOr())
	}
	if _, err := ParseConfig("agentx.toml", []byte("[github]\nsync_timeout = \"soon\"\n")); err == nil {
		t.Error("sync_timeout = \"soon\" accepted")
	}
}

// [checkpoints] is a known table: its keys load without a warning, and an
// unset or nonsensical keep falls back to the default.
func TestCheckpointSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "agentx.toml")
	for _, tc := range []struct {
		toml     string
		keep     int
		onFinish bool
	}{
		{"mode = \"local\"\n", 50, false},
		{"[checkpoints]\nkeep = 7\non_hook_finish = true\n", 7, true},
		{"[checkpoints]\nkeep = 0\n", 50, false},
	} {
		if err := os.WriteFile(p, []byte(tc.toml), 0o644); err != nil {
			t.Fatal(err)
		}
		set, err := Load(p, filepath.Join(dir, "workflows"))
		if err != nil {
			t.Fatal(err)
		}
		c := set.Config.Checkpoints
		if c.KeepOr(50) != tc.keep || c.OnHookFinish != tc.onFinish || len(set.Config.Warnings) != 0 {
			t.Errorf("%q: keep %d, on_hook_finish %v, warnings %v", tc.toml, c.KeepOr(50), c.OnHookFinish, set.Config.Warnings)
		}
	}
}

func TestRetentionDefaults(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig("agentx.toml", []byte("mode = \"local\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Retention.ArchiveAfter(); got != 90*24*time.Hour {
		t.Errorf("archive after %s, want 90 days", got)
	}
	if got := c.Retention.CompactOverOr(); got != DefaultCompactOver {
		t.Errorf("compact over %d", got)
	}
	c, err = ParseConfig("agentx.toml", []byte("[retention]\narchive_after_days = 0\ncompact_over = 0\n"))
	if err != nil || c.Retention.ArchiveAfter() != 0 || c.Retention.CompactOverOr() != 0 {
		t.Fatalf("off: %v %+v", err, c.Retention)
	}
}
