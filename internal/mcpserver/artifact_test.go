package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// artifact_list and artifact_show read the ledger the hooks write: the
// stale SPEC is listed as stale and shown with the change to read.
func TestArtifactTools(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	set, err := config.Load(ws.ConfigFile(), ws.WorkflowsDir())
	if err != nil {
		t.Fatal(err)
	}
	st := &artifact.Store{WS: ws, Locks: lock.New(lock.Options{})}
	rec := func(path, blob, at string) {
		w := artifact.Match(set, []string{path})
		if len(w) != 1 {
			t.Fatalf("%s matches %d outputs", path, len(w))
		}
		w[0].Blob = blob
		if _, err := st.Record(context.Background(), set, "c0ffee1", at, w); err != nil {
			t.Fatal(err)
		}
	}
	rec("docs/prd/PRD-42.md", "b1", "2026-01-01T00:00:00.000Z")
	rec("docs/specs/SPEC-42.md", "s1", "2026-01-01T00:01:00.000Z")
	rec("docs/prd/PRD-42.md", "b2", "2026-01-01T00:02:00.000Z")
	cs := connect(t, ws, "architect", nil)
	out := ok(t, cs, "artifact_list", map[string]any{"issue": 42, "stale": true})
	list, _ := out["artifacts"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != "SPEC-42" || list[0].(map[string]any)["status"] != "stale" {
		t.Fatalf("artifact_list: %v", out)
	}
	show := ok(t, cs, "artifact_show", map[string]any{"id": "SPEC-42"})
	if txt, _ := show["text"].(string); !strings.Contains(txt, "PRD-42 changed in c0ffee1") {
		t.Fatalf("artifact_show: %v", show)
	}
	refused(t, cs, "artifact_show", map[string]any{"id": "ADR-42"}, "NOT_FOUND")
}
