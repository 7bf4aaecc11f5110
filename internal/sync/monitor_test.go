package sync

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// TestMonitorNeverOverwritesANewerLedger: the branch moves between the
// monitor's read and its commit (an ingest landed); the monitor's
// escalation must be applied to the fresh ledger, keeping the ingest's
// answer, never written over it.
func TestMonitorNeverOverwritesANewerLedger(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	old := ledger42()
	// CLR-42-001 has had its first timeout: the second one escalates.
	old.Clarifications[0].Status = ledger.Stale
	old.Clarifications[0].SetExtra("staleRound", json.RawMessage("1"))
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, old))
	// Upstream, a person resolves CLR-42-002 while the monitor checks.
	newer := ledger42()
	newer.Clarifications[0] = old.Clarifications[0]
	r := &newer.Clarifications[1]
	r.Status = ledger.Resolved
	r.Thread = append(r.Thread, ledger.Entry{Round: 1, From: "alice", Type: ledger.Resolution, Body: "MVP.", Timestamp: r.Created})

	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	m := &Monitor{State: sb, Clock: clock.NewFake(t0.Add(48 * time.Hour))}
	ctx := context.Background()
	// The other writer lands between the monitor's read and its commit.
	raced := false
	fake.Fault = func(c githubfake.Call) *githubfake.Response {
		if !raced && c.Route == "POST /repos/{owner}/{repo}/git/trees" {
			raced = true
			fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, newer))
		}
		return nil
	}
	after, err := m.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42)
	got, err := ledger.Parse("remote", data, 42)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := got.Find("CLR-42-001").Status, got.Find("CLR-42-002").Status; a != ledger.Escalated || b != ledger.Resolved {
		t.Fatalf("statuses %s, %s: the monitor overwrote the newer ledger or did not act", a, b)
	}
	if !raced || fake.BranchCommits(DefaultStateBranch) != 3 {
		t.Fatalf("raced %v, %d commits, want 3 (seed, the other writer, the monitor)", raced, fake.BranchCommits(DefaultStateBranch))
	}
	if len(m.Changed) != 1 || m.Changed[0] != 42 {
		t.Fatalf("changed %v", m.Changed)
	}
	// The snapshot returned is what landed, for the sync that follows.
	if tip, _ := sb.Tip(ctx); tip != after.Commit {
		t.Fatalf("returned snapshot %s, branch at %s", after.Commit, tip)
	}
}
