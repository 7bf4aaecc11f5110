package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
	"github.com/agentx-dev/agentx/internal/core/intake"
)

// Retention is a step of hook finish at the session's end, under the
// hook's deadline: run once at the end, never mid-session, skipped and
// named when the deadline passed. hook start passes the store's alerts to
// the warnings.
func TestRetentionIsAStepOfTheSessionsEnd(t *testing.T) {
	t.Parallel()
	d, warnings := bareDeps(t)
	d.Intake = func(bool) *intake.Intake { return nil } // memory on; nothing to capture
	retained := 0
	d.Retain = func(ctx context.Context) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("retention runs without the hook's deadline")
		}
		retained++
	}
	d.StoreAlerts = func(context.Context) []string { return []string{"memory store is over 40 MB on disk"} }

	run, end := NewRun(context.Background(), "hook finish", time.Now(), time.Minute)
	defer end()
	Finish(d, run, Input{Event: EventFinish, Agent: "engineer", Host: "text",
		Payload: capture.ParseInput([]byte(`{"session_id":"s1","hook_event_name":"Stop","cwd":"/x"}`))})
	if retained != 0 {
		t.Fatal("retention ran mid-session")
	}
	Finish(d, run, Input{Event: EventFinish, Agent: "engineer", Host: "text"})
	if retained != 1 {
		t.Fatalf("retention ran %d times at the session's end", retained)
	}

	late, endLate := NewRun(context.Background(), "hook finish", time.Now().Add(-time.Hour), time.Second)
	defer endLate()
	Finish(d, late, Input{Event: EventFinish, Agent: "engineer", Host: "text"})
	if retained != 1 || !strings.Contains(strings.Join(late.Skipped(), ", "), "memory retention") {
		t.Fatalf("past the deadline: ran %d, skipped %q", retained, late.Skipped())
	}

	start, endStart := NewRun(context.Background(), "hook start", time.Now(), time.Minute)
	defer endStart()
	Start(d, start, Input{Event: EventStart, Agent: "engineer", Host: "text"})
	if got := strings.Join(*warnings, "\n"); !strings.Contains(got, "agentx hook start: memory store is over 40 MB") {
		t.Fatalf("warnings %q", got)
	}
}
