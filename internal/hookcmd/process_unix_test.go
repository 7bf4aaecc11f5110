//go:build unix

package hookcmd

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/ledger/ledgertest"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

func TestSIGSTOPpedHolderLosesNothing(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	ws := workspace.Workspace{Root: root}
	lockPath := ws.LedgerFile(6) + ".lock"
	// B judges A's lock stale after 1 s; A would judge B's only after a
	// minute, so however long B holds (however slowly a loaded machine
	// wakes A), A cannot steal the lock back: the order rests on no timing.
	// A holds until told too: a fixed hold could end, and A write and
	// release, before a loaded machine delivers the SIGSTOP.
	a, resumeA := startProcStdin(t, []string{"AGENTX_LOCK_STALE_MS=60000"}, "agentx-testholder", root, "6", "stdin", "A")
	a.expect(t, "locked")
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// B finds A's lock stale after 1 s, takes over, and holds until told,
	// so A wakes up while B still holds.
	b, releaseB := startProcStdin(t, []string{"AGENTX_LOCK_STALE_MS=1000"}, "agentx-testholder", root, "6", "stdin", "B")
	b.expect(t, "locked")
	bLock, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(resumeA, "go\n"); err != nil {
		t.Fatal(err)
	}
	a.expect(t, "write-refused")
	rel := a.expect(t, "release")
	if !strings.Contains(rel, "taken over") {
		t.Errorf("A's release should report the lost lock, got %q", rel)
	}
	now, err := os.ReadFile(lockPath)
	if err != nil || string(now) != string(bLock) {
		t.Fatalf("A's release disturbed B's lock: %v %q vs %q", err, now, bLock)
	}
	if _, err := io.WriteString(releaseB, "go\n"); err != nil {
		t.Fatal(err)
	}
	b.expect(t, "done")
	a.expect(t, "done")
	_ = a.cmd.Wait()
	_ = b.cmd.Wait()
	l, err := ledger.LoadFile(ws.LedgerFile(6), 6)
	if err != nil {
		t.Fatal(err)
	}
	topics := []string{}
	for _, r := range l.Clarifications {
		topics = append(topics, r.Topic)
	}
	if strings.Join(topics, ",") != "B,A" {
		t.Fatalf("records = %v, want B then A (A re-applied on the fresh ledger)", topics)
	}
	ledgertest.CheckIDs(t, root, 6, 2)
}
