package hookcmd

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Two (here six) sessions of one agent at once, each hook its own
// process: an answer written while they run reaches exactly one of them,
// once, and the ledger holds one receipt naming that session (issue 34).
func TestDeliverToOneOfConcurrentSessions(t *testing.T) {
	t.Parallel()
	root := initWorkspace(t)
	run(t, root, nil, "agentx-hook", "--root", root, "clarify", "request", "--issue", "6", "--from", "engineer", "--to", "architect",
		"--topic", "storage", "--question", "Postgres or SQLite?", "--non-blocking")
	const n = 6
	payload := func(i int, event string) string {
		return fmt.Sprintf(`{"session_id":"sess-%d","hook_event_name":%q,"cwd":%q}`, i, event, root)
	}
	hook := func(i int, args ...string) (string, error) {
		cmd := exec.Command("agentx-hook", append([]string{"hook"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "AGENTX_LOCK_WAIT_MS=60000")
		event := "SessionStart"
		if args[0] == "deliver" {
			event = "PostToolUse"
		}
		cmd.Stdin = strings.NewReader(payload(i, event))
		out, err := cmd.Output()
		return string(out), err
	}
	for i := range n {
		if _, err := hook(i, "start", "--agent", "engineer", "--issue", "6", "--format", "claude"); err != nil {
			t.Fatal(err)
		}
	}
	run(t, root, nil, "agentx-hook", "--root", root, "clarify", "answer", "CLR-6-001", "--body", "SQLite for now, ONE-DELIVERY")
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := hook(i, "deliver", "--agent", "engineer", "--format", "claude")
			if err != nil {
				t.Errorf("session %d: %v", i, err)
			}
			outs[i] = out
		}()
	}
	wg.Wait()
	got := []int{}
	for i, out := range outs {
		if c := strings.Count(out, "ONE-DELIVERY"); c > 0 {
			if c != 1 {
				t.Errorf("session %d got it %d times", i, c)
			}
			got = append(got, i)
		}
	}
	if len(got) != 1 {
		t.Fatalf("delivered to sessions %v, want exactly one: %q", got, outs)
	}
	show := run(t, root, nil, "agentx-hook", "--root", root, "clarify", "show", "CLR-6-001", "--json")
	if strings.Count(show, `"delivered"`) != 1 || !strings.Contains(show, fmt.Sprintf(`"session": "sess-%d"`, got[0])) {
		t.Errorf("receipt:\n%s", show)
	}
	// Every session, again: nothing more.
	for i := range n {
		if out, _ := hook(i, "deliver", "--agent", "engineer", "--format", "claude"); out != "" {
			t.Errorf("session %d, second hook: %q", i, out)
		}
	}
}
