package monitor

import (
	"context"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/config"
)

// One upstream change gets one clarification between the owners, for
// every artifact it made stale of one owner, and never a second one.
func TestNotifyStaleOncePerChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	w, err := config.ParseWorkflow("feature.toml", config.DefaultFiles()["workflows/feature.toml"])
	if err != nil {
		t.Fatal(err)
	}
	e.rt.Config = &config.Set{Workflows: []config.Workflow{w}, Config: config.Config{DefaultWorkflow: "feature"}}
	st := &artifact.Store{WS: e.rt.WS, Locks: e.rt.Locks, NoSync: true}
	ctx := context.Background()
	rec := func(at string, files map[string]string) {
		var paths []string
		for p := range files {
			paths = append(paths, p)
		}
		ws := artifact.Match(e.rt.Config, paths)
		for i := range ws {
			ws[i].Blob = files[ws[i].Path]
		}
		if _, err := st.Record(ctx, e.rt.Config, "c0ffee0", at, ws); err != nil {
			t.Fatal(err)
		}
	}
	rec("2026-01-01T00:00:00.000Z", map[string]string{"docs/prd/PRD-7.md": "p1"})
	rec("2026-01-01T00:01:00.000Z", map[string]string{"docs/adr/ADR-7.md": "a1", "docs/specs/SPEC-7.md": "s1"})
	if n, errs := e.mon.NotifyStale(ctx, st); len(n) != 0 || len(errs) != 0 {
		t.Fatalf("nothing stale yet: %+v %v", n, errs)
	}
	rec("2026-01-01T00:02:00.000Z", map[string]string{"docs/prd/PRD-7.md": "p2"})
	n, errs := e.mon.NotifyStale(ctx, st)
	if len(errs) != 0 || len(n) != 2 || n[0].Clarification != "CLR-7-001" || n[1].Clarification != "CLR-7-001" {
		t.Fatalf("notices = %+v %v", n, errs)
	}
	// The prd step may ask nobody: the architect asks the product manager.
	if r := e.get("CLR-7-001"); r == nil || r.From != "architect" || r.To != "product-manager" || r.Blocking {
		t.Fatalf("record = %+v", r)
	}
	if n, _ := e.mon.NotifyStale(ctx, st); len(n) != 0 {
		t.Fatalf("announced twice: %+v", n)
	}
	rep := &Report{}
	e.mon.CheckArtifacts(ctx, st, rep, true)
	if len(rep.ArtifactNotices) != 0 || len(rep.StaleArtifacts) != 2 || len(rep.ArtifactLines()) != 2 {
		t.Fatalf("check = %+v", rep)
	}
}
