package digest

import (
	"slices"

	"github.com/agentx-dev/agentx/internal/core/artifact"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// maxStageRows bounds the stage table of a digest: the issues with the
// most stale artifacts first.
const maxStageRows = 30

// StageRow is one issue's stage as the digest shows it: where it stands
// now (not windowed) and how many of its artifacts are stale, found
// before their review or after it (approved).
type StageRow struct {
	Issue       int    `json:"issue"`
	Stage       string `json:"stage"`
	StaleBefore int    `json:"staleBeforeReview"`
	StaleAfter  int    `json:"staleAfterReview"`
}

// stageRows derives every issue's stage from its artifact ledger, its
// clarifications and the workflows (nil without both).
func stageRows(in *Input) []StageRow {
	if in.Workflows == nil || len(in.Artifacts) == 0 {
		return nil
	}
	byIssue := map[int]*ledger.Ledger{}
	for _, l := range in.Ledgers {
		byIssue[l.IssueNumber] = l
	}
	var rows []StageRow
	for _, f := range in.Artifacts {
		if len(f.Artifacts) == 0 {
			continue
		}
		wf, ok := artifact.WorkflowOf(in.Workflows, f, in.Workflows.Config.DefaultWorkflow)
		if !ok {
			continue
		}
		active, blocked := atWork(byIssue[f.IssueNumber])
		row := StageRow{Issue: f.IssueNumber, Stage: artifact.DeriveStage(wf, f, active, blocked).String()}
		for _, fd := range f.Findings() {
			if a := f.Find(fd.Artifact); a != nil && a.Status == artifact.Approved {
				row.StaleAfter++
			} else {
				row.StaleBefore++
			}
		}
		rows = append(rows, row)
	}
	slices.SortStableFunc(rows, func(a, b StageRow) int {
		if d := (b.StaleBefore + b.StaleAfter) - (a.StaleBefore + a.StaleAfter); d != 0 {
			return d
		}
		return a.Issue - b.Issue
	})
	return rows
}

// atWork are the agents asking an open clarification of l (at work on
// the issue) and its blocking clarifications waiting for an answer.
func atWork(l *ledger.Ledger) (active map[string]bool, blocked []string) {
	active = map[string]bool{}
	if l == nil {
		return active, nil
	}
	for i := range l.Clarifications {
		r := &l.Clarifications[i]
		if r.Status.Open() {
			active[r.From] = true
			if r.Blocking && r.Status.Waiting() {
				blocked = append(blocked, r.ID)
			}
		}
	}
	return active, blocked
}

// stages is the digest's table of the issues' stages, the stale first.
func (m *md) stages(rep *Report) {
	if len(rep.Stages) == 0 {
		return
	}
	m.p("\n## Stages now\n\nWhere each issue stands in its workflow, and its stale artifacts (written against an upstream artifact that changed since), found before their review or after.\n\n| Issue | Stage | Stale before review | Stale after review |\n|---|---|---:|---:|\n")
	for i, r := range rep.Stages {
		if i == maxStageRows {
			m.p("\n%d more issues not shown.\n", len(rep.Stages)-maxStageRows)
			break
		}
		m.p("| #%d | %s | %d | %d |\n", r.Issue, m.text(r.Stage), r.StaleBefore, r.StaleAfter)
	}
}
