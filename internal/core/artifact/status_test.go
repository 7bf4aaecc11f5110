package artifact

import (
	"context"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/config"
)

// The issue status follows the stage: the step at work names it by its
// status_on_start; a step whose outputs are all approved, by its
// status_on_complete.
func TestStageStatus(t *testing.T) {
	t.Parallel()
	wf, err := config.ParseWorkflow("feature.toml", []byte(`
[[steps]]
id = "prd"
agent = "product-manager"
output = "docs/prd/PRD-{{issue_number}}.md"
status_on_start = "Writing the PRD"
status_on_complete = "PRD approved"

[[steps]]
id = "architecture"
agent = "architect"
needs = ["prd"]
output = "docs/specs/SPEC-{{issue_number}}.md"
status_on_start = "In design"
status_on_complete = "Ready"
`))
	if err != nil {
		t.Fatal(err)
	}
	set := &config.Set{Workflows: []config.Workflow{wf}}
	if got := Statuses(set); len(got) != 4 || got[0] != "In design" || got[3] != "Writing the PRD" {
		t.Fatalf("statuses = %q", got)
	}
	ctx := context.Background()
	s := newStore(t)
	status := func() string {
		t.Helper()
		f, err := s.Load(7)
		if err != nil {
			t.Fatal(err)
		}
		return DeriveStage(&wf, f, nil, nil).Status(&wf, f)
	}
	if got := status(); got != "Writing the PRD" {
		t.Errorf("nothing recorded: %q", got)
	}
	write(t, s, set, "c1", "2026-01-01T00:00:00.000Z", map[string]string{"docs/prd/PRD-7.md": "b1"})
	if got := status(); got != "In design" {
		t.Errorf("PRD written, the architect at work: %q", got)
	}
	write(t, s, set, "c2", "2026-01-01T00:01:00.000Z", map[string]string{"docs/specs/SPEC-7.md": "s1"})
	if got := status(); got != "In design" {
		t.Errorf("SPEC written, not approved: %q", got)
	}
	for _, id := range []string{"PRD-7", "SPEC-7"} {
		if _, err := s.SetStatus(ctx, id, Approved, "2026-01-01T00:02:00.000Z"); err != nil {
			t.Fatal(err)
		}
	}
	if got := status(); got != "Ready" {
		t.Errorf("everything approved: %q", got)
	}
	write(t, s, set, "c3", "2026-01-01T00:03:00.000Z", map[string]string{"docs/prd/PRD-7.md": "b2"})
	if got := status(); got != "In design" {
		t.Errorf("the PRD changed, the SPEC stale: %q", got)
	}
}
