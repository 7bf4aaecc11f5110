package monitor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// A live foreign lock (the TypeScript dialect, held by a live process) on
// one ledger with three overdue records: the check does not wait for it
// (it used to wait 5 s per record, 15 s in all, whatever issue the command
// was about), checks the other ledgers, and leaves the busy one for the
// next check.
func TestBusyLedgerIsSkippedWithoutWaiting(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.put(rec(7, 1, "engineer", "architect", true, ledger.Pending),
		rec(7, 2, "engineer", "architect", true, ledger.Pending),
		rec(7, 3, "engineer", "architect", true, ledger.Pending),
		rec(8, 1, "engineer", "architect", true, ledger.Pending))
	holder := exec.Command("sleep", "60")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	e.clk.Advance(2 * time.Hour)
	now := clock.Format(e.clk.Now())
	lockFile := lock.PathFor(e.rt.WS.LedgerFile(7))
	content := fmt.Sprintf(`{"pid":%d,"timestamp":%q,"agent":"engineer"}`, holder.Process.Pid, now)
	if err := os.WriteFile(lockFile, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := e.mon.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := e.rt.Locks.Polls(); n != 0 {
		t.Fatalf("the check waited on a busy ledger (%d pauses for its lock)", n)
	}
	busy, marked := 0, 0
	for _, a := range rep.Actions {
		switch {
		case a.Issue == 7 && a.Kind == ActSkipped:
			busy++
		case a.Issue == 8 && a.Kind == ActMarkedStale:
			marked++
		}
	}
	if busy != 3 || marked != 1 || len(rep.Failures) != 0 {
		t.Fatalf("actions %+v failures %v", rep.Actions, rep.Failures)
	}
	if got := e.get("CLR-7-001").Status; got != ledger.Pending {
		t.Fatalf("busy ledger changed: %s", got)
	}
	if data, _ := os.ReadFile(lockFile); string(data) != content {
		t.Fatalf("the foreign lock was touched: %s", data)
	}
	// Released: the next check acts on it.
	if err := os.Remove(lockFile); err != nil {
		t.Fatal(err)
	}
	if _, err := e.mon.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.get("CLR-7-001").Status; got != ledger.Stale {
		t.Fatalf("after release: %s", got)
	}
}

// A lock the quick look misjudged as stale (this process's locker keeps
// locks for an hour) is waited for at most TryWait, once per ledger, and
// the ledger is skipped, not failed.
func TestLockTakenMeanwhileIsWaitedForBriefly(t *testing.T) {
	e := newEnv(t, nil)
	e.put(rec(7, 1, "engineer", "architect", true, ledger.Pending),
		rec(7, 2, "engineer", "architect", true, ledger.Pending))
	locks := lock.New(lock.Options{Clock: e.clk, StaleAfter: time.Hour})
	e.rt.Locks, e.rt.Ledgers.Locks = locks, locks
	e.clk.Advance(2 * time.Hour)
	old := clock.Format(e.clk.Now().Add(-time.Minute))
	lockFile := lock.PathFor(e.rt.WS.LedgerFile(7))
	if err := os.WriteFile(lockFile, []byte(fmt.Sprintf(`{"pid":%d,"timestamp":%q}`, os.Getpid(), old)), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := e.mon.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// One wait, cut at TryWait, for the ledger: not one per record.
	if _, timeouts := locks.Stats(); timeouts != 1 {
		t.Fatalf("the check gave up %d waits for the lock, want 1", timeouts)
	}
	if len(rep.Actions) != 2 || rep.Actions[0].Kind != ActSkipped || rep.Actions[1].Kind != ActSkipped || len(rep.Failures) != 0 {
		t.Fatalf("actions %+v failures %v", rep.Actions, rep.Failures)
	}
}
