package sync

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// TestMonitorNeverOverwritesANewerLedger: the checkout is older than the
// repository (an ingest landed since); the monitor's escalation must be
// applied to the fresh ledger, keeping the ingest's answer.
func TestMonitorNeverOverwritesANewerLedger(t *testing.T) {
	fake := newFakeWithIssues(42)
	defer fake.Close()
	old := ledger42()
	// CLR-42-001 has had its first timeout: the second one escalates.
	old.Clarifications[0].Status = ledger.Stale
	old.Clarifications[0].SetExtra("staleRound", json.RawMessage("1"))
	root := t.TempDir()
	ws := workspace.Workspace{Root: root}
	os.MkdirAll(filepath.Dir(ws.LedgerFile(42)), 0o755)
	os.WriteFile(ws.LedgerFile(42), encode(t, old), 0o644)
	// Upstream, a person resolved CLR-42-002 meanwhile.
	newer := ledger42()
	newer.Clarifications[0] = old.Clarifications[0]
	r := &newer.Clarifications[1]
	r.Status = ledger.Resolved
	r.Thread = append(r.Thread, ledger.Entry{Round: 1, From: "alice", Type: ledger.Resolution, Body: "MVP.", Timestamp: r.Created})
	fake.SetFile(ledgerPath42, encode(t, newer))

	m := &Monitor{GH: newTestClient(t, fake, &sleeps{}), WS: ws, Clock: clock.NewFake(t0.Add(48 * time.Hour))}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	data, _ := fake.File(ledgerPath42)
	got, err := ledger.Parse("remote", data, 42)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := got.Find("CLR-42-001").Status, got.Find("CLR-42-002").Status; a != ledger.Escalated || b != ledger.Resolved {
		t.Fatalf("statuses %s, %s: the monitor overwrote the newer ledger or did not act", a, b)
	}
	// The checkout now holds what landed, for the sync that follows.
	local, _ := os.ReadFile(ws.LedgerFile(42))
	if string(local) != string(data) {
		t.Fatal("the checkout does not hold the committed ledger")
	}
	if len(m.Changed) != 1 || m.Changed[0] != 42 {
		t.Fatalf("changed %v", m.Changed)
	}
}

// What the monitor mirrors into the checkout replaces the ledger the way
// every state write does: atomically (a reader of the old file keeps the
// whole old file, never a truncated one) and only under the ledger's lock.
func TestMirrorLedgerIsAtomicAndLocked(t *testing.T) {
	ws := workspace.Workspace{Root: t.TempDir()}
	path := ws.LedgerFile(42)
	os.MkdirAll(filepath.Dir(path), 0o755)
	old, next := encode(t, ledger42()), []byte("{\"issueNumber\": 42, \"clarifications\": []}\n")
	os.WriteFile(path, old, 0o644)
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	store := &ledger.Store{WS: ws, Locks: lock.New(lock.Options{Wait: 100 * time.Millisecond})}
	if err := mirrorLedger(context.Background(), store, 42, next); err != nil {
		t.Fatal(err)
	}
	if seen, _ := io.ReadAll(reader); string(seen) != string(old) {
		t.Fatalf("a reader of the old ledger saw %q: the file was rewritten in place", seen)
	}
	if got, _ := os.ReadFile(path); string(got) != string(next) {
		t.Fatalf("ledger holds %q", got)
	}
	held, err := lock.New(lock.Options{}).Acquire(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if err := mirrorLedger(context.Background(), store, 42, old); !errcode.Is(err, errcode.LockTimeout) {
		t.Fatalf("wrote past a held lock: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(next) {
		t.Fatalf("ledger changed under another holder's lock: %q", got)
	}
}
