package actioncmd

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// TestActionLabelsFollowTheLedgerAfterIngest: the agent answered (no
// blocked label); a person's /clarify ask puts the blocked label back
// through ingest, which never writes the sync state's label cache; the
// agent answers again, and the next sync must take the label off.
func TestActionLabelsFollowTheLedgerAfterIngest(t *testing.T) {
	t.Parallel()
	fake, r := syncRunner(t)
	fake.AddIssue(5)
	r.writeLedger(answered(5))
	if res := r.run(); res.code != 0 || len(fake.IssueLabels(5)) != 0 {
		t.Fatalf("sync: exit %d labels %v\n%s", res.code, fake.IssueLabels(5), res.stdout)
	}
	c := fake.AddComment(5, "alice", "MEMBER", "/clarify ask CLR-5-001 And for the mobile app?")
	r.env["INPUT_COMMAND"], r.env["GITHUB_EVENT_NAME"] = "ingest", "issue_comment"
	r.event(commentEvent("created", c))
	if res := r.run(); res.code != 0 || res.outputs["commands-applied"] != "1" || strings.Join(fake.IssueLabels(5), ",") != "clarification-blocked" {
		t.Fatalf("ingest: exit %d outputs %v labels %v\n%s", res.code, res.outputs, fake.IssueLabels(5), res.stdout)
	}
	// The agent answers the follow-up on the state branch.
	l := r.branchLedger(5)
	rec := l.Find("CLR-5-001")
	rec.Status = ledger.Answered
	rec.Thread = append(rec.Thread, ledger.Entry{Round: rec.Round, From: "architect", Type: ledger.Answer, Body: "The same.", Timestamp: rec.Created})
	r.writeLedger(l)
	r.env["INPUT_COMMAND"], r.env["GITHUB_EVENT_NAME"] = "sync", "push"
	r.event(map[string]any{"ref": "refs/heads/main"})
	if res := r.run(); res.code != 0 || len(fake.IssueLabels(5)) != 0 {
		t.Fatalf("sync after the answer: exit %d outputs %v, labels %v (the blocked label stayed)\n%s", res.code, res.outputs, fake.IssueLabels(5), res.stdout)
	}
}
