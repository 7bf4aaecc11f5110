package hookcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// litterMain: agentx-testlitter ROOT. A writer caught mid-write as a kill
// finds it: it holds the lock of issue 9's ledger and agentx's checkpoints
// lock, with an atomic write's temporary of the ledger and a git object's
// temporary open, says "ready" and waits to be killed.
func litterMain() {
	root := os.Args[1]
	ws := workspace.Workspace{Root: root}
	locks := lock.New(lock.Options{Agent: "litter"})
	ctx := context.Background()
	if _, err := locks.Acquire(ctx, ws.LedgerFile(9)); err != nil {
		fmt.Println("lock-failed", err)
		os.Exit(1)
	}
	if _, err := locks.Acquire(ctx, filepath.Join(root, ".git", "agentx", "checkpoints")); err != nil {
		fmt.Println("lock-failed", err)
		os.Exit(1)
	}
	tmp, err := os.CreateTemp(ws.ClarificationsDir(), atomicfile.TempPattern("issue-9.json"))
	if err != nil {
		fmt.Println("temp-failed", err)
		os.Exit(1)
	}
	_, _ = tmp.WriteString(`{"version": 1, "issueNumber": 9, "clarifi`)
	objDir := filepath.Join(root, ".git", "objects", "ab")
	_ = os.MkdirAll(objDir, 0o755)
	obj, err := os.CreateTemp(objDir, "tmp_obj_")
	if err != nil {
		fmt.Println("temp-failed", err)
		os.Exit(1)
	}
	_, _ = obj.WriteString("x\x9c")
	fmt.Println("ready")
	// Wait for the kill. Not `select {}`: with no timer left, the runtime
	// calls that a deadlock and ends the process itself (it did once,
	// under load, before the test's SIGKILL came).
	time.Sleep(time.Hour)
	os.Exit(1)
}

// Issue 32: what a SIGKILLed writer leaves (a lock, an atomic write's
// temporary, a git object's temporary) is removed by `verify --repair`
// at once, its writer's death proven from the lock's owner and the
// temporary's name, not after five minutes; then `verify` exits 0.
func TestRepairRemovesAKilledWritersLitterAtOnce(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	run(t, root, nil, "git", "init", "-q", root)
	if err := os.MkdirAll(workspace.Workspace{Root: root}.ClarificationsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, nil, "agentx-testlitter", root)
	for line := range p.lines {
		if line == "ready" {
			break
		}
		t.Fatalf("litter writer: %s", line)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	// The git temporary as a moment after the kill (GitTempQuiet): what
	// is waited for is the writer's close-to-rename gap, not a writer.
	objs, _ := filepath.Glob(filepath.Join(root, ".git", "objects", "ab", "tmp_obj_*"))
	if len(objs) != 1 {
		t.Fatalf("git temporaries: %v", objs)
	}
	old := time.Now().Add(-3 * time.Second)
	if err := os.Chtimes(objs[0], old, old); err != nil {
		t.Fatal(err)
	}
	verifyOut := func(args ...string) (int, string) {
		code, out, errs := (&anchorWS{t: t, root: root}).run(append([]string{"verify"}, args...)...)
		return code, out + errs
	}
	code, out := verifyOut()
	if code != 1 || !strings.Contains(out, "LOCK_DEAD_PROCESS") || !strings.Contains(out, "TEMP_LEFTOVER") || !strings.Contains(out, "GIT_TEMP_LEFTOVER") {
		t.Fatalf("verify after the kill: exit %d\n%s", code, out)
	}
	if code, out = verifyOut("--repair"); code != 0 {
		t.Fatalf("verify --repair: exit %d\n%s", code, out)
	}
	if code, out = verifyOut(); code != 0 || strings.Contains(out, "LEFTOVER") || strings.Contains(out, "LOCK_") {
		t.Fatalf("verify after the repair: exit %d\n%s", code, out)
	}
	left, _ := filepath.Glob(filepath.Join(root, ".agentx", "state", "clarifications", ".*.tmp-*"))
	objs, _ = filepath.Glob(filepath.Join(root, ".git", "objects", "ab", "tmp_obj_*"))
	if len(left)+len(objs) != 0 {
		t.Fatalf("left after the repair: %v %v", left, objs)
	}
}
