package sync

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// TestSyncLabelsFollowTheLedgerAfterAnotherWriter: ingest (a person's
// /clarify ask) put the blocked label on without touching the sync
// state's label cache; when the agent's answer lands, sync must take the
// label off, from what the issue really carries, not from the cache.
func TestSyncLabelsFollowTheLedgerAfterAnotherWriter(t *testing.T) {
	t.Parallel()
	fake, sb := monitorRig(t, 0)
	fake.AddIssue(1)
	ctx := context.Background()
	l := waitLedger(1, "engineer", "architect", t0.Add(48*time.Hour))
	rec := &l.Clarifications[0]
	rec.Status = ledger.Answered
	rec.Thread = append(rec.Thread, ledger.Entry{Round: 1, From: "architect", Type: ledger.Answer, Body: "Yes.", Timestamp: rec.Created})
	fake.PutBranchFile(DefaultStateBranch, BranchLedgerPath(1), encode(t, l))
	if err := newSyncer(sb.GH).RunBranch(ctx, sb, nil); err != nil {
		t.Fatal(err)
	}
	if got := fake.IssueLabels(1); len(got) != 0 {
		t.Fatalf("labels after the first sync: %v", got)
	}
	// ingest: a person asks again; its own mirror adds the blocked label
	// (it reads the issue's labels, and never writes the sync state).
	rec.Status, rec.Round = ledger.Pending, 2
	rec.Thread = append(rec.Thread, ledger.Entry{Round: 2, From: "alice", Type: ledger.Question, Body: "And for mobile?", Timestamp: rec.Created,
		Extra: []jsonfile.Field{{Key: CommentKey, Value: commentIDValue(99)}}})
	fake.PutBranchFile(DefaultStateBranch, BranchLedgerPath(1), encode(t, l))
	if err := newSyncer(sb.GH).Issue(ctx, l, NewState()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fake.IssueLabels(1), ","); got != testLabels.Blocked {
		t.Fatalf("labels after ingest: %q", got)
	}
	// The agent answers: nothing blocks any more.
	rec.Status = ledger.Answered
	rec.Thread = append(rec.Thread, ledger.Entry{Round: 2, From: "architect", Type: ledger.Answer, Body: "Same.", Timestamp: rec.Created})
	fake.PutBranchFile(DefaultStateBranch, BranchLedgerPath(1), encode(t, l))
	sb = NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	if err := newSyncer(sb.GH).RunBranch(ctx, sb, nil); err != nil {
		t.Fatal(err)
	}
	if got := fake.IssueLabels(1); len(got) != 0 {
		t.Fatalf("the blocked label stayed after the answer: %v", got)
	}
}
