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

// Every hook has one overall deadline (issue 15): a step stalled behind a
// live foreign lock (here every lock a hook may take, waited on for up to
// 60 s) does not hold the hook past it. The hook exits 0 within the
// deadline and a margin, and one warning line names the steps not done.
// The margin is wide (20 s against a 1 s deadline) so that a loaded CI
// machine does not fail it, and still a third of the wait a hook without
// its deadline would sit out. Each run is under `timeout`, so a regression
// fails fast.
func TestHookDeadline(t *testing.T) {
	t.Parallel()
	// Each case sits out its deadline (about a second) in a workspace of
	// its own, so the four wait at once.
	for _, tc := range []struct {
		name string
		args []string // summaryArg stands for the workspace's summary file
		want string   // a step the warning names
	}{
		{"hook start", []string{"hook", "start", "--agent", "engineer", "--issue", "3"}, "agent status"},
		{"hook finish", []string{"hook", "finish", "--agent", "engineer", "--issue", "3", "--summary-file", summaryArg}, "agent status"},
		{"hook start --deadline", []string{"hook", "start", "--agent", "engineer", "--issue", "3", "--deadline", "500ms"}, "agent status"},
		{"post-commit", []string{"git-hook", "post-commit"}, "commit observation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, summary := lockedDeadlineWorkspace(t)
			args := append([]string{"70", "agentx-hook"}, tc.args...)
			for i, a := range args {
				if a == summaryArg {
					args[i] = summary
				}
			}
			env := []string{"AGENTX_LOCK_WAIT_MS=60000", "AGENTX_AGENT=engineer"}
			start := time.Now()
			out := run(t, root, env, "timeout", args...)
			took := time.Since(start)
			if took > 20*time.Second {
				t.Errorf("%v took %v, past its deadline:\n%s", tc.args, took, out)
			}
			var lines []string
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, "deadline") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || !strings.Contains(lines[0], "skipped") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("%v: want one deadline warning naming %q, got %q:\n%s", tc.args, tc.want, lines, out)
			}
		})
	}
}

// summaryArg is replaced by the path of a case's summary file.
const summaryArg = "<summary>"

// lockedDeadlineWorkspace is a workspace on branch 3-fix with a 1 s hook
// deadline, a session summary, and every lock a hook may take held by a
// live process (waited on for up to 60 s by the case's environment).
func lockedDeadlineWorkspace(t *testing.T) (root, summary string) {
	t.Helper()
	root = initWorkspace(t)
	if err := os.WriteFile(filepath.Join(root, ".agentx", "agentx.toml"), []byte("[hooks]\ndeadline = \"1s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, root, nil, "git", "init", "-q", "-b", "3-fix")
	run(t, root, nil, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first")
	holder := exec.Command("sleep", "120")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	ws := filepath.Join(root, ".agentx")
	targets := []string{
		filepath.Join(ws, "state", "agent-status.json"),
		filepath.Join(ws, "state", "events.jsonl"),
		filepath.Join(ws, "memory", "issue-3.json"),
		filepath.Join(ws, "memory", "manifest.json"),
		filepath.Join(ws, "memory", "recall-journal.jsonl"),
	}
	spool, _ := filepath.Glob(filepath.Join(ws, "memory", ".spool*"))
	for _, p := range append(targets, spool...) {
		content := fmt.Sprintf(`{"pid":%d,"timestamp":%q}`, holder.Process.Pid, clock.Format(time.Now()))
		if err := os.WriteFile(p+".lock", []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	summary = filepath.Join(root, "summary.md")
	if err := os.WriteFile(summary, []byte("## Key Facts\n- the deadline holds\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, summary
}

// A hook finish whose deadline passes before its capture (its status
// write stalled behind a live foreign lock) still spools the session's
// summary, and the next hook start stores it: a slow side effect never
// loses what a session learned.
func TestHookFinishSpoolsPastItsDeadline(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	if err := os.WriteFile(filepath.Join(root, ".agentx", "agentx.toml"), []byte("[hooks]\ndeadline = \"1s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sleep", "120")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	status := filepath.Join(root, ".agentx", "state", "agent-status.json.lock")
	content := fmt.Sprintf(`{"pid":%d,"timestamp":%q}`, holder.Process.Pid, clock.Format(time.Now()))
	if err := os.WriteFile(status, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(root, "summary.md")
	if err := os.WriteFile(summary, []byte("## Key Facts\n- the late spool keeps this fact\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"AGENTX_LOCK_WAIT_MS=30000"}
	out := run(t, root, env, "timeout", "12", "agentx-hook", "hook", "finish", "--agent", "engineer", "--issue", "3", "--summary-file", summary)
	if !strings.Contains(out, "memory capture (spooled: the next hook start stores it)") {
		t.Fatalf("hook finish past its deadline did not spool its capture:\n%s", out)
	}
	if found := run(t, root, nil, "agentx-hook", "memory", "search", "late spool"); strings.Contains(found, "late spool keeps") {
		t.Fatalf("stored before any hook start, so nothing was cut:\n%s", found)
	}
	if err := os.Remove(status); err != nil {
		t.Fatal(err)
	}
	run(t, root, nil, "agentx-hook", "hook", "start", "--agent", "engineer", "--issue", "3")
	if found := run(t, root, nil, "agentx-hook", "memory", "search", "late spool"); !strings.Contains(found, "late spool keeps") {
		t.Fatalf("the next hook start did not store the spooled capture:\n%s", found)
	}
}
