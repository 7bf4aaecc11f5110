package hookcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
)

// A live TypeScript lock on one ledger holding three overdue records made
// every command wait 5 s per record, even for another issue (`hook start
// --agent reviewer --issue 33` took 15 s). The monitor inside hooks and
// commands now skips a busy ledger: each command finishes well within a
// hook's budget, and the busy ledger is left as it is for the next check.
func TestLiveForeignLockDoesNotStallHooks(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	dir := filepath.Join(root, ".agentx", "state", "clarifications")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var recs []string
	for i := 1; i <= 3; i++ {
		recs = append(recs, fmt.Sprintf(`{"id":"CLR-7-%03d","issueNumber":7,"from":"engineer","to":"architect","topic":"t%d","blocking":true,"status":"pending","round":1,"maxRounds":5,"created":"2026-03-01T17:04:15.123Z","staleAfter":"2026-03-01T17:34:15.123Z","thread":[{"round":1,"from":"engineer","type":"question","body":"q","timestamp":"2026-03-01T17:04:15.123Z"}]}`, i, i))
	}
	ledger := `{"issueNumber":7,"clarifications":[` + strings.Join(recs, ",") + "]}\n"
	path := filepath.Join(dir, "issue-7.json")
	if err := os.WriteFile(path, []byte(ledger), 0o644); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sleep", "120")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	// The TypeScript dialect: pid and timestamp, refreshed before each
	// command so the lock is live by its age too.
	writeLock := func() {
		content := fmt.Sprintf(`{"pid":%d,"timestamp":%q}`, holder.Process.Pid, clock.Format(time.Now()))
		if err := os.WriteFile(path+".lock", []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"hook", "start", "--agent", "reviewer", "--issue", "33"},
		{"clarify"},
		{"monitor"},
	} {
		writeLock()
		start := time.Now()
		// A lock wait far past the bound: a command that waited would fail
		// it by a wide margin, a loaded machine would not.
		out := run(t, root, []string{"AGENTX_LOCK_WAIT_MS=60000"}, "agentx-hook", append([]string{"--root", root}, args...)...)
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("%v took %v with a busy ledger:\n%s", args, took, out)
		}
	}
	if data, _ := os.ReadFile(path); string(data) != ledger {
		t.Fatalf("the locked ledger was written:\n%s", data)
	}
}
