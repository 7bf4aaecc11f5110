package artifact

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/config"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/tombstone"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func featureSet(t *testing.T) *config.Set {
	t.Helper()
	w, err := config.ParseWorkflow("feature.toml", config.DefaultFiles()["workflows/feature.toml"])
	if err != nil {
		t.Fatal(err)
	}
	return &config.Set{Workflows: []config.Workflow{w}}
}

func newStore(t *testing.T) *Store {
	return &Store{WS: workspace.Workspace{Root: t.TempDir()}, Locks: lock.New(lock.Options{})}
}

func write(t *testing.T, s *Store, set *config.Set, commit, now string, files map[string]string) []Outcome {
	t.Helper()
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	ws := Match(set, paths)
	for i := range ws {
		ws[i].Blob = files[ws[i].Path]
	}
	out, err := s.Record(context.Background(), set, commit, now, ws)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A SPEC written against a PRD is stale once the PRD changes, until it is
// acknowledged or rewritten; the stage says so.
func TestSpecGoesStaleWhenThePRDChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	set, s := featureSet(t), newStore(t)
	out := write(t, s, set, "c1", "2026-01-01T00:00:00.000Z", map[string]string{"docs/prd/PRD-42.md": "b1", "src/x.go": "zz"})
	if len(out) != 1 || out[0].ID != "PRD-42" || out[0].Agent != "product-manager" || !out[0].New() {
		t.Fatalf("record PRD = %+v", out)
	}
	write(t, s, set, "c2", "2026-01-01T00:01:00.000Z", map[string]string{"docs/specs/SPEC-42.md": "s1", "docs/adr/ADR-42.md": "a1"})
	f, _ := s.Load(42)
	if spec := f.Find("SPEC-42"); spec == nil || len(spec.DependsOn) != 1 || spec.DependsOn[0] != (Dep{ID: "PRD-42", Blob: "b1"}) {
		t.Fatalf("SPEC-42 = %+v", spec)
	}
	if len(f.Findings()) != 0 {
		t.Fatalf("stale before any change: %v", f.Findings())
	}
	if got := DeriveStage(&set.Workflows[0], f, map[string]bool{"engineer": true}, []string{"CLR-42-001"}).String(); got != "feature: prd ✓ → architecture ✓ → implement (engineer) [BLOCKED: CLR-42-001]" {
		t.Errorf("stage = %q", got)
	}
	// The same blob again (post-merge over a commit already seen): nothing.
	if again := write(t, s, set, "c2", "2026-01-01T00:01:30.000Z", map[string]string{"docs/specs/SPEC-42.md": "s1"}); len(again) != 0 {
		t.Fatalf("re-record = %+v", again)
	}
	write(t, s, set, "c3abcdef", "2026-01-01T00:02:00.000Z", map[string]string{"docs/prd/PRD-42.md": "b2"})
	f, _ = s.Load(42)
	fs := f.Findings()
	if len(fs) != 2 {
		t.Fatalf("findings = %+v", fs)
	}
	line := fs[1].String()
	if fs[1].Artifact != "SPEC-42" || !strings.Contains(line, "SPEC-42 (architect) is stale: PRD-42 changed in c3abcde after it was written") || !strings.Contains(line, "git diff b1 b2") {
		t.Errorf("finding = %q", line)
	}
	if got := DeriveStage(&set.Workflows[0], f, map[string]bool{"engineer": true}, []string{"CLR-42-001"}).String(); got != "feature: prd ✓ → architecture (ADR-42 stale, SPEC-42 stale) → implement (engineer) [BLOCKED: CLR-42-001]" {
		t.Errorf("stage = %q", got)
	}
	if _, err := s.SetStatus(ctx, "SPEC-42", Approved, "t"); err == nil {
		t.Fatal("a stale artifact was approved")
	}
	o, acked, err := s.Ack(ctx, "SPEC-42", "2026-01-01T00:03:00.000Z")
	if err != nil || len(acked) != 1 || o.Status != Draft {
		t.Fatalf("ack = %+v %+v %v", o, acked, err)
	}
	f, _ = s.Load(42)
	if got := f.EffectiveStatus(f.Find("SPEC-42")); got != Draft {
		t.Errorf("SPEC-42 after ack = %s", got)
	}
	for _, a := range f.Artifacts {
		if a.Integrity() != contenthash.Intact {
			t.Errorf("%s: %s", a.ID, a.Integrity())
		}
	}
	if _, err := s.Reopen(ctx, "PRD-42", "2026-01-01T00:04:00.000Z"); err != nil {
		t.Fatal(err)
	}
	f, _ = s.Load(42)
	if got := DeriveStage(&set.Workflows[0], f, nil, nil).String(); !strings.HasPrefix(got, "feature: prd (PRD-42 reopened)") {
		t.Errorf("stage after reopen = %q", got)
	}
}

// The merge is a union by id, the later update of one artifact wins, and
// a tombstone removes.
func TestMergeIsAUnionLessTombstones(t *testing.T) {
	t.Parallel()
	mk := func(f File) []byte {
		for i := range f.Artifacts {
			f.Artifacts[i].Seal()
		}
		data, err := Marshal(&f)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	base := mk(File{IssueNumber: 7, Artifacts: []Artifact{{ID: "PRD-7", Blob: "b1", Updated: "1", Created: "1"}}})
	ours := mk(File{IssueNumber: 7, Artifacts: []Artifact{{ID: "PRD-7", Blob: "b2", Updated: "2", Created: "1"}, {ID: "ADR-7", Created: "2", Updated: "2"}}})
	theirs := mk(File{IssueNumber: 7, Artifacts: []Artifact{{ID: "PRD-7", Blob: "b1", Updated: "1", Created: "1",
		Notified: []Notice{{ID: "X", Blob: "y", At: "1"}}}, {ID: "SPEC-7", Created: "3", Updated: "3"}}})
	m1, err := Merge("p", base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	m2, _ := Merge("p", base, theirs, ours)
	if !bytes.Equal(m1, m2) {
		t.Fatalf("merge is not symmetric:\n%s\n%s", m1, m2)
	}
	f, _ := Parse("p", m1, 7)
	prd := f.Find("PRD-7")
	if len(f.Artifacts) != 3 || prd.Blob != "b2" || len(prd.Notified) != 1 || prd.Integrity() != contenthash.Intact {
		t.Fatalf("merged = %s", m1)
	}
	gone := mk(File{IssueNumber: 7, Artifacts: []Artifact{}})
	g, _ := Parse("p", gone, 7)
	g.Tombstones = g.Tombstones.Add(tombstoneFor("ADR-7"))
	goneData, _ := Marshal(g)
	m3, err := Merge("p", ours, ours, goneData)
	if err != nil {
		t.Fatal(err)
	}
	f3, _ := Parse("p", m3, 7)
	if f3.Find("ADR-7") != nil || f3.Find("PRD-7") == nil {
		t.Fatalf("tombstoned merge = %s", m3)
	}
}

func tombstoneFor(id string) tombstone.Tombstone {
	return tombstone.Tombstone{Kind: TombstoneKind, ID: id, Reason: "removed", At: "9"}
}
