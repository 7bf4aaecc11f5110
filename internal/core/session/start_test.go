package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/lock"
	"github.com/agentx-dev/agentx/internal/core/router"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// bareDeps is a session on an empty .agentx/ with no configuration: the
// session lists what the ledgers say and acts on nothing.
func bareDeps(t *testing.T) (*Deps, *[]string) {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(root+"/.agentx/state", 0o755); err != nil {
		t.Fatal(err)
	}
	ws := workspace.Workspace{Root: root}
	locks := lock.New(lock.Options{})
	var warnings []string
	return &Deps{
		Workspace: ws, Locks: locks, Clock: clock.Real{}, CLI: "agentx-hook",
		Router:  func() (*router.Router, error) { return nil, errors.New("no configuration") },
		Ledgers: &ledger.Store{WS: ws, Locks: locks},
		Warn:    func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) },
	}, &warnings
}

func TestStartWithoutConfiguration(t *testing.T) {
	t.Parallel()
	d, warnings := bareDeps(t)
	run, end := NewRun(context.Background(), "hook start", time.Now(), time.Minute)
	defer end()
	res := Start(d, run, Input{Event: EventStart, Agent: "engineer", Issue: 7, HasIssue: true, Host: "text"})
	if res.Status != agentstatus.Working {
		t.Errorf("status %q, want working", res.Status)
	}
	if !strings.HasPrefix(res.Text, "# agentx: engineer on issue #7 (status: working)\n") ||
		!strings.Contains(res.Text, "Nothing waits for you") {
		t.Errorf("text:\n%s", res.Text)
	}
	if len(*warnings) == 0 || !strings.Contains((*warnings)[0], "no configuration") {
		t.Errorf("warnings %q: the missing configuration is not told", *warnings)
	}
	if res.Blocked != nil || run.Report() != "" {
		t.Errorf("blocked %v, report %q", res.Blocked, run.Report())
	}
	st, err := agentstatus.Load(d.Workspace.AgentStatusFile())
	if err != nil || st.Get("engineer") == nil || st.Get("engineer").Status != agentstatus.Working {
		t.Fatalf("agent status not written: %+v %v", st, err)
	}
}

// TestStartPastItsDeadline: every step is skipped and named once, and the
// agent is told that nothing was checked rather than that nothing waits.
func TestStartPastItsDeadline(t *testing.T) {
	t.Parallel()
	d, _ := bareDeps(t)
	run, end := NewRun(context.Background(), "hook start", time.Now().Add(-time.Hour), time.Second)
	defer end()
	res := Start(d, run, Input{Event: EventStart, Agent: "engineer", Host: "claude"})
	if !strings.Contains(res.Text, "Not checked: the hook's deadline passed first") {
		t.Errorf("text:\n%s", res.Text)
	}
	if got := strings.Join(run.Skipped(), ", "); got != "monitor, agent status, memory recall" {
		t.Errorf("skipped %q", got)
	}
	if res.Status != "" {
		t.Errorf("status %q written past the deadline", res.Status)
	}
}

func TestFinishMidSessionStaysWorking(t *testing.T) {
	t.Parallel()
	d, _ := bareDeps(t)
	run, end := NewRun(context.Background(), "hook finish", time.Now(), time.Minute)
	defer end()
	stop := Input{Event: EventFinish, Agent: "engineer", Host: "claude",
		Payload: capture.ParseInput([]byte(`{"session_id":"s1","hook_event_name":"Stop","cwd":"/x"}`))}
	res := Finish(d, run, stop)
	if res.Status != agentstatus.Working || res.Host != "text" {
		t.Errorf("status %q host %q: a Stop mid-session is not the session's end", res.Status, res.Host)
	}
	res = Finish(d, run, Input{Event: EventFinish, Agent: "engineer", Host: "text"})
	if res.Status != agentstatus.Done {
		t.Errorf("status %q at the session's end, want done", res.Status)
	}
}
