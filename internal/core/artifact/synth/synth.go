// Package synth writes synthetic artifact ledgers for measuring (seed
// 004's large-project profile: 2,000 artifacts over 500 issues): each
// issue gets the feature workflow's PRD, UX, ADR and SPEC, the downstream
// ones written against the PRD, and every fifth issue's PRD changed since
// (its UX, ADR and SPEC stale).
package synth

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// blob is a deterministic 40-hex id.
func blob(parts ...any) string {
	sum := sha1.Sum([]byte(fmt.Sprint(parts...)))
	return hex.EncodeToString(sum[:])
}

// Generate writes the ledgers of issues 1..issues into ws, perIssue
// artifacts each (at most 4: PRD, UX, ADR, SPEC), and returns how many
// artifacts it wrote.
func Generate(ws workspace.Workspace, issues, perIssue int) (int, error) {
	if err := os.MkdirAll(ws.ArtifactsDir(), 0o755); err != nil {
		return 0, err
	}
	kinds := []struct{ prefix, step, agent, dir string }{
		{"PRD", "prd", "product-manager", "docs/prd"}, {"UX", "ux", "ux-designer", "docs/ux"},
		{"ADR", "architecture", "architect", "docs/adr"}, {"SPEC", "architecture", "architect", "docs/specs"},
	}
	n := 0
	for i := 1; i <= issues; i++ {
		f := &artifact.File{IssueNumber: i}
		prd := blob("prd", i)
		for k := 0; k < perIssue && k < len(kinds); k++ {
			kd := kinds[k]
			id := fmt.Sprintf("%s-%d", kd.prefix, i)
			a := artifact.Artifact{ID: id, Workflow: "feature", Step: kd.step, Agent: kd.agent,
				Path: fmt.Sprintf("%s/%s.md", kd.dir, id), Blob: blob(id), Commit: blob("commit", id),
				Created: "2026-01-01T00:00:00.000Z", Updated: "2026-01-01T00:00:00.000Z", DependsOn: []artifact.Dep{}, Status: artifact.Draft}
			if k == 0 {
				a.Blob = prd
				if i%5 == 0 {
					a.Blob = blob("prd changed", i) // its downstream ones are stale
				}
			} else {
				a.DependsOn = []artifact.Dep{{ID: fmt.Sprintf("PRD-%d", i), Blob: prd}}
			}
			a.Seal()
			f.Artifacts = append(f.Artifacts, a)
			n++
		}
		data, err := jsonfile.Marshal(f)
		if err != nil {
			return n, err
		}
		if err := atomicfile.Write(ws.ArtifactFile(i), data, atomicfile.Options{NoSync: true}); err != nil {
			return n, err
		}
	}
	return n, nil
}
