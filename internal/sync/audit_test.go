package sync

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/audit"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
)

// TestIngestIsAudited: a command applied from a comment leaves one line in
// the state branch's audit trail, in the same commit as the ledger, naming
// the comment's author and the record's hashes; a second command chains
// to it, and a new month moves the trail to its month's file.
func TestIngestIsAudited(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
	c := newTestClient(t, fake, &sleeps{})
	clk := clock.NewFake(t0.Add(time.Minute))
	for _, cmd := range []struct{ user, body string }{
		{"alice", "/clarify answer CLR-42-001 Sessions."},
		{"bob", "/clarify resolve CLR-42-002 Ship without SSO."},
	} {
		in := newIngester(c)
		in.Clock = clk
		if out, err := in.Run(context.Background(), event(fake, cmd.user, "OWNER", cmd.body)); err != nil || !out.Applied {
			t.Fatalf("%s: %+v %v", cmd.body, out, err)
		}
	}
	trail, _ := fake.BranchFile(DefaultStateBranch, BranchAuditPath)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, audit.FileName), trail, 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := audit.History(dir, audit.Filter{})
	if err != nil || len(h) != 2 {
		t.Fatalf("trail %s: %v", trail, err)
	}
	if h[0].Actor != "alice" || h[0].Op != "clarify.answer" || h[0].Tool != "agentx-action" || h[1].Actor != "bob" || h[1].Op != "clarify.resolve" {
		t.Fatalf("lines %+v", h)
	}
	data, _ := fake.BranchFile(DefaultStateBranch, ledgerPath42)
	l, _ := ledger.Parse("remote", data, 42)
	if got := l.Find("CLR-42-002").Hash(); got != h[1].After["CLR-42-002"] || h[1].Before["CLR-42-002"] == "" {
		t.Fatalf("after hash %s, the trail says %+v", got, h[1])
	}
	if f, _, _ := audit.Check(dir); len(f) != 0 {
		t.Fatalf("chain: %+v", f)
	}
	clk.Set(t0.AddDate(0, 1, 0))
	in := newIngester(c)
	in.Clock = clk
	if out, err := in.Run(context.Background(), event(fake, "carol", "OWNER", "/clarify ask CLR-42-001 Which store?")); err != nil || !out.Applied {
		t.Fatalf("ask: %+v %v", out, err)
	}
	march, _ := fake.BranchFile(DefaultStateBranch, "state/audit-2026-03.jsonl")
	april, _ := fake.BranchFile(DefaultStateBranch, BranchAuditPath)
	if !bytes.Equal(march, trail) || bytes.Count(april, []byte("\n")) != 1 {
		t.Fatalf("rotation: march %q, april %q", march, april)
	}
	_ = os.WriteFile(filepath.Join(dir, audit.RotatedName("2026-03")), march, 0o644)
	_ = os.WriteFile(filepath.Join(dir, audit.FileName), april, 0o644)
	if f, n, _ := audit.Check(dir); len(f) != 0 || n != 3 {
		t.Fatalf("chain across months: %+v (%d lines)", f, n)
	}
}

// TestMonitorIsAudited: the Action's monitor check leaves one line per
// record it acted on, actor agent-x, in the same commit as the ledgers.
func TestMonitorIsAudited(t *testing.T) {
	t.Parallel()
	fake := newFakeWithIssues(42)
	defer fake.Close()
	fake.PutBranchFile(DefaultStateBranch, ledgerPath42, encode(t, ledger42()))
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	m := &Monitor{State: sb, Clock: clock.NewFake(t0.Add(time.Hour))} // CLR-42-001 past its SLA
	if _, err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	trail, _ := fake.BranchFile(DefaultStateBranch, BranchAuditPath)
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, audit.FileName), trail, 0o644)
	h, err := audit.History(dir, audit.Filter{})
	if err != nil || len(h) != 1 || h[0].Op != "monitor.mark-stale" || h[0].Actor != ledger.HubName || h[0].IDs[0] != "CLR-42-001" {
		t.Fatalf("trail %s (%+v, %v)", trail, h, err)
	}
	// A second check with nothing to do writes nothing.
	if _, err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again, _ := fake.BranchFile(DefaultStateBranch, BranchAuditPath); !bytes.Equal(again, trail) {
		t.Fatalf("a check that did nothing audited: %s", again)
	}
}
