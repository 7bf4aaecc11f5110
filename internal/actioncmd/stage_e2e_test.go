package actioncmd

import (
	"strconv"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/githubfake"
	"github.com/agentx-dev/agentx/internal/sync"
)

// A workflow whose steps name the issue's status.
const stageWorkflow = `
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
`

func (r *runner) writeArtifacts(f *artifact.File) {
	r.t.Helper()
	for i := range f.Artifacts {
		f.Artifacts[i].Seal()
	}
	data, err := artifact.Marshal(f)
	if err != nil {
		r.t.Fatal(err)
	}
	r.fake.PutBranchFile(sync.DefaultStateBranch, "state/artifacts/issue-"+itoa(f.IssueNumber)+".json", data)
}

func itoa(n int) string { return strconv.Itoa(n) }

func stageComments(r *runner, issue int) []string {
	var out []string
	for _, c := range r.fake.Comments(issue) {
		if strings.Contains(c.Body, "<!-- agentx:stage v=1 -->") {
			out = append(out, c.Body)
		}
	}
	return out
}

// GitHub Mode mirrors each issue's stage (issue 33): one comment with the
// stage line and the stale artifacts, and the status its workflow's steps
// name as a label, kept in step with the artifact ledger on the state
// branch; an unchanged ledger costs no call.
func TestActionMirrorsTheStage(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t)
	fake.AddIssue(42)
	r.checkoutFile("workflows/feature.toml", []byte(stageWorkflow))
	at := "2026-01-01T00:00:00.000Z"
	prd := artifact.Artifact{ID: "PRD-42", Workflow: "feature", Step: "prd", Agent: "product-manager", Path: "docs/prd/PRD-42.md",
		Blob: "2222222222222222222222222222222222222222", Commit: "c0ffee0c0ffee0c0ffee0c0ffee0c0ffee0c0ff", Created: at, Updated: at, DependsOn: []artifact.Dep{}, Status: artifact.Draft}
	spec := artifact.Artifact{ID: "SPEC-42", Workflow: "feature", Step: "architecture", Agent: "architect", Path: "docs/specs/SPEC-42.md",
		Blob: "3333333333333333333333333333333333333333", Created: at, Updated: at, Status: artifact.Draft,
		DependsOn: []artifact.Dep{{ID: "PRD-42", Blob: "1111111111111111111111111111111111111111"}}}
	r.writeArtifacts(&artifact.File{IssueNumber: 42, Artifacts: []artifact.Artifact{prd, spec}})

	res := r.run()
	if res.code != 0 {
		t.Fatalf("sync: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	got := stageComments(r, 42)
	if len(got) != 1 || !strings.Contains(got[0], "**Stage** (agentx): feature: prd ✓ → architecture (SPEC-42 stale)") ||
		!strings.Contains(got[0], "`` SPEC-42 `` (architect): `` PRD-42 `` changed in `` c0ffee0 ``, found before review") && !strings.Contains(got[0], "` SPEC-42 ` (architect): ` PRD-42 ` changed in ` c0ffee0 `, found before review") {
		t.Fatalf("stage comments = %q", got)
	}
	if labels := strings.Join(fake.IssueLabels(42), ","); labels != "status: In design" {
		t.Fatalf("labels = %q", labels)
	}
	if l, ok := fake.RepoLabel("status: In design"); !ok || l.Color != "0e8a16" {
		t.Fatalf("label = %+v, %v", l, ok)
	}

	// Nothing changed: no comment written, no label touched.
	fake.ResetCounts()
	if res := r.run(); res.code != 0 || fake.Writes() != 0 {
		t.Fatalf("second sync: exit %d, %d writes\n%s", res.code, fake.Writes(), res.stderr)
	}

	// The SPEC acknowledged and both approved: the comment says so, the
	// label moves to the last step's status_on_complete.
	spec.DependsOn[0].Blob = prd.Blob
	prd.Status, spec.Status = artifact.Approved, artifact.Approved
	r.writeArtifacts(&artifact.File{IssueNumber: 42, Artifacts: []artifact.Artifact{prd, spec}})
	if res := r.run(); res.code != 0 {
		t.Fatalf("sync after approval: exit %d\n%s", res.code, res.stderr)
	}
	got = stageComments(r, 42)
	if len(got) != 1 || !strings.Contains(got[0], "feature: prd ✓ → architecture ✓") || strings.Contains(got[0], "stale") {
		t.Fatalf("stage comments after approval = %q", got)
	}
	if labels := strings.Join(fake.IssueLabels(42), ","); labels != "status: Ready" {
		t.Fatalf("labels after approval = %q", labels)
	}
}

// The Action's digest shows each issue's stage and its stale artifacts,
// found before their review or after, from the state branch.
func TestActionDigestShowsStages(t *testing.T) {
	t.Parallel()
	fake := githubfake.New()
	defer fake.Close()
	r := newRunner(t, fake)
	r.env["INPUT_COMMAND"], r.env["INPUT_DRY-RUN"] = "digest", "true"
	r.checkoutFile("workflows/feature.toml", []byte(stageWorkflow))
	at := "2026-01-01T00:00:00.000Z"
	prd := artifact.Artifact{ID: "PRD-42", Workflow: "feature", Step: "prd", Agent: "product-manager", Path: "docs/prd/PRD-42.md",
		Blob: "2222222222222222222222222222222222222222", Created: at, Updated: at, DependsOn: []artifact.Dep{}, Status: artifact.Draft}
	spec := artifact.Artifact{ID: "SPEC-42", Workflow: "feature", Step: "architecture", Agent: "architect", Path: "docs/specs/SPEC-42.md",
		Blob: "3333333333333333333333333333333333333333", Created: at, Updated: at, Status: artifact.Approved,
		DependsOn: []artifact.Dep{{ID: "PRD-42", Blob: "1111111111111111111111111111111111111111"}}}
	r.writeArtifacts(&artifact.File{IssueNumber: 42, Artifacts: []artifact.Artifact{prd, spec}})
	res := r.run()
	if res.code != 0 {
		t.Fatalf("digest: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.summary, "## Stages now") || !strings.Contains(res.summary, "| #42 | feature: prd ✓ → architecture (SPEC-42 stale) | 0 | 1 |") ||
		!strings.Contains(res.summary, "## Stage artifacts") {
		t.Fatalf("digest summary:\n%s", res.summary)
	}
}
