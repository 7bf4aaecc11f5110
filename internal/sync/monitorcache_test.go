package sync

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/githubfake"
)

// waitLedger is issue's ledger with one blocking question from -> to,
// its SLA passing at due.
func waitLedger(issue int, from, to string, due time.Time) *ledger.Ledger {
	ts := clock.Format(t0)
	return &ledger.Ledger{IssueNumber: issue, Clarifications: []ledger.Record{{
		ID: fmt.Sprintf("CLR-%d-001", issue), IssueNumber: issue, From: from, To: to, Topic: "t", Blocking: true,
		Status: ledger.Pending, Round: 1, MaxRounds: 3, Created: ts, StaleAfter: clock.Format(due),
		Thread: []ledger.Entry{{Round: 1, From: from, Type: ledger.Question, Body: "q?", Timestamp: ts}}}}}
}

// monitorRig mirrors n ledgers (issue i: engineer -> architect, due at
// t0+48h) and returns the branch, the client and the sync state.
func monitorRig(t *testing.T, n int) (*githubfake.Server, *StateBranch) {
	t.Helper()
	fake := githubfake.New()
	t.Cleanup(fake.Close)
	files := map[string][]byte{}
	for i := 1; i <= n; i++ {
		fake.AddIssue(i)
		files[BranchLedgerPath(i)] = encode(t, waitLedger(i, "engineer", "architect", t0.Add(48*time.Hour)))
	}
	fake.SetBranchFiles(DefaultStateBranch, files, "ledgers")
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	if err := newSyncer(sb.GH).RunBranch(context.Background(), sb, nil); err != nil {
		t.Fatal(err)
	}
	return fake, sb
}

func runMonitor(t *testing.T, fake *githubfake.Server, now time.Time) (*Monitor, int) {
	t.Helper()
	ctx := context.Background()
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "") // no blob cached between runs
	fake.ResetCounts()
	snap, err := sb.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data, err := sb.ReadFile(ctx, snap, SyncStatePath)
	if err != nil {
		t.Fatal(err)
	}
	m := &Monitor{State: sb, Clock: clock.NewFake(now), Start: snap, Cache: ParseState(data)}
	if _, err := m.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return m, fake.Calls()["GET /repos/{owner}/{repo}/git/blobs/{sha}"]
}

// TestMonitorReadsOnlyWhatIsDueOrChanged: with the sync state's cache,
// the monitor reads no ledger when nothing changed and nothing is due,
// only the due one when one is, and, when a changed ledger closes a wait
// cycle, the ledgers on that cycle (a deadlock spans issues), never all.
func TestMonitorReadsOnlyWhatIsDueOrChanged(t *testing.T) {
	t.Parallel()
	fake, _ := monitorRig(t, 30)
	if m, blobs := runMonitor(t, fake, t0.Add(time.Hour)); blobs != 1 || m.Read != 0 || m.Skipped != 30 {
		t.Fatalf("nothing due: %d blob reads (want 1, the sync state), read %d, skipped %d", blobs, m.Read, m.Skipped)
	}
	// Issue 7 falls due sooner.
	fake.PutBranchFile(DefaultStateBranch, BranchLedgerPath(7), encode(t, waitLedger(7, "engineer", "architect", t0.Add(time.Hour))))
	sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	if err := newSyncer(sb.GH).RunBranch(context.Background(), sb, nil); err != nil {
		t.Fatal(err)
	}
	m, blobs := runMonitor(t, fake, t0.Add(2*time.Hour))
	if m.Read != 1 || blobs != 2 || len(m.Changed) != 1 || m.Changed[0] != 7 {
		t.Fatalf("one due: read %d, %d blob reads, changed %v", m.Read, blobs, m.Changed)
	}
	// A new ledger where the architect waits on the engineer: a cycle
	// with every engineer -> architect wait, so those are read, and the
	// deadlock is found as without the cache.
	fake.PutBranchFile(DefaultStateBranch, BranchLedgerPath(31), encode(t, waitLedger(31, "architect", "engineer", t0.Add(48*time.Hour))))
	fake.AddIssue(31)
	m, _ = runMonitor(t, fake, t0.Add(2*time.Hour))
	if m.Read != 31 || len(m.Changed) == 0 {
		t.Fatalf("cycle: read %d, changed %v", m.Read, m.Changed)
	}
	// A new ledger on no cycle (pm -> designer) reads only itself.
	fake.AddIssue(32)
	fake.PutBranchFile(DefaultStateBranch, BranchLedgerPath(32), encode(t, waitLedger(32, "pm", "designer", t0.Add(48*time.Hour))))
	sb = NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	if err := newSyncer(sb.GH).RunBranch(context.Background(), sb, nil); err != nil {
		t.Fatal(err)
	}
	fake.PutBranchFile(DefaultStateBranch, BranchLedgerPath(33), encode(t, waitLedger(33, "pm", "designer", t0.Add(48*time.Hour))))
	if m, _ = runMonitor(t, fake, t0.Add(2*time.Hour)); m.Read != 1 {
		t.Fatalf("no cycle: read %d ledgers, want 1", m.Read)
	}
}

// TestSyncBrokenLedgerOnFirstSyncDoesNotCostEveryLaterRun: one ledger
// does not parse on the very first sync; the next sync reads that one
// again, not all of them.
func TestSyncBrokenLedgerOnFirstSyncDoesNotCostEveryLaterRun(t *testing.T) {
	t.Parallel()
	fake, _ := monitorRig(t, 0)
	files := map[string][]byte{}
	for i := 1; i <= 20; i++ {
		fake.AddIssue(i)
		files[BranchLedgerPath(i)] = encode(t, waitLedger(i, "engineer", "architect", t0.Add(48*time.Hour)))
	}
	files[BranchLedgerPath(5)] = []byte("{not json")
	fake.SetBranchFiles(DefaultStateBranch, files, "ledgers, one broken")
	ctx := context.Background()
	for run := 1; run <= 2; run++ {
		sb := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
		fake.ResetCounts()
		err := newSyncer(sb.GH).RunBranch(ctx, sb, nil)
		if err == nil {
			t.Fatalf("run %d: the broken ledger was not reported", run)
		}
		blobs := fake.Calls()["GET /repos/{owner}/{repo}/git/blobs/{sha}"]
		t.Logf("run %d: %d blob reads", run, blobs)
		if run == 2 && blobs != 2 { // the sync state and the broken ledger
			t.Fatalf("second sync read %d blobs, want 2 (the state and the broken ledger)", blobs)
		}
	}
}

// TestQuickSnapshotOnlyOnTheSyncsOwnTip: after a complete mirror, the
// branch is known from its tip and the sync state alone (two calls, the
// same ledgers as the tree lists); after any other writer's commit it is
// not, and the branch must be read in full.
func TestQuickSnapshotOnlyOnTheSyncsOwnTip(t *testing.T) {
	t.Parallel()
	fake, sb := monitorRig(t, 12)
	ctx := context.Background()
	full, err := sb.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fresh := NewStateBranch(newTestClient(t, fake, &sleeps{}), "")
	fake.ResetCounts()
	snap, st, err := newSyncer(fresh.GH).QuickSnapshot(ctx, fresh)
	if err != nil || snap == nil || st == nil {
		t.Fatalf("quick snapshot after a complete mirror: %v %v", snap, err)
	}
	if calls := fake.Reads() + fake.Writes(); calls != 2 {
		t.Fatalf("%d calls, want 2 (the branch, the sync state): %v", calls, fake.Calls())
	}
	if snap.Commit != full.Commit || snap.Tree != full.Tree || !snap.Partial {
		t.Fatalf("snapshot %+v, branch %s/%s", snap, full.Commit, full.Tree)
	}
	for _, p := range full.Paths(ledgerDir) {
		if snap.Blobs[p] != full.Blobs[p] {
			t.Fatalf("%s: %s, the tree says %s", p, snap.Blobs[p], full.Blobs[p])
		}
	}
	fake.PutBranchFile(DefaultStateBranch, BranchLedgerPath(3), encode(t, waitLedger(3, "pm", "engineer", t0)))
	if snap, _, err := newSyncer(fresh.GH).QuickSnapshot(ctx, fresh); err != nil || snap != nil {
		t.Fatalf("quick snapshot after another writer: %+v %v", snap, err)
	}
}

// TestMonitorLearnsWatchesAStateWithoutThem: a sync state written before
// watches were (every blob recorded, no watch) costs the monitor every
// ledger once, not every run: what it read is recorded by the sync that
// follows, though that sync skips the unchanged ledgers by blob.
func TestMonitorLearnsWatchesAStateWithoutThem(t *testing.T) {
	t.Parallel()
	fake, sb := monitorRig(t, 8)
	ctx := context.Background()
	data, _ := fake.BranchFile(DefaultStateBranch, SyncStatePath)
	old := ParseState(data)
	for k, is := range old.Issues {
		is.Watch = nil
		old.Issues[k] = is
	}
	fake.PutBranchFile(DefaultStateBranch, SyncStatePath, mustJSON(t, old))
	for run, want := range []int{8, 0} {
		m, _ := runMonitor(t, fake, t0.Add(time.Hour))
		if m.Read != want {
			t.Fatalf("monitor run %d read %d ledgers, want %d", run+1, m.Read, want)
		}
		sy := newSyncer(sb.GH)
		sy.Learned = m.Learned
		if err := sy.RunBranch(ctx, sb, nil); err != nil {
			t.Fatal(err)
		}
	}
}
