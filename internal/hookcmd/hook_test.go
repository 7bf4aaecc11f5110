package hookcmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/session"
)

func TestApplyTestClock(t *testing.T) {
	t.Parallel()
	env := map[string]string{"AGENTX_NOW": "2030-01-01T09:00:00Z"}
	var stderr strings.Builder
	a := &App{Getenv: func(k string) string { return env[k] }, Stderr: &stderr}
	a.applyTestClock()
	want := time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)
	if got := a.Clock.Now(); got.Before(want) || got.After(want.Add(time.Minute)) {
		t.Errorf("clock = %s, want about %s", got, want)
	}
	env["AGENTX_NOW"] = "tomorrow"
	a.applyTestClock()
	if !strings.Contains(stderr.String(), "ignoring AGENTX_NOW") {
		t.Errorf("stderr = %q", stderr.String())
	}
}

func TestMonitorAfter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{nil, true},
		{usagef("bad"), false},
		{errHelp, false},
		{errcode.New(errcode.NotFound, "no such record"), true},
	} {
		if got := monitorAfter(tt.err); got != tt.want {
			t.Errorf("monitorAfter(%v) = %v", tt.err, got)
		}
	}
}

// TestHookStartOpenStdin runs a whole hook on a stdin that never closes.
func TestHookStartOpenStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	env := map[string]string{"NO_COLOR": "1"}
	mk := func(stdin io.Reader) *App {
		return &App{Stdin: stdin, Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] },
			Cwd: dir, Clock: clock.Real{}}
	}
	if rc := mk(strings.NewReader("")).Run(context.Background(), []string{"init"}); rc != 0 {
		t.Fatalf("init: %d %s", rc, errb.String())
	}
	out.Reset()
	r, w := io.Pipe()
	defer func() { _ = w.Close() }()
	start := time.Now()
	if rc := mk(r).Run(context.Background(), []string{"hook", "start", "--agent", "engineer", "--deadline", "2s"}); rc != 0 {
		t.Fatalf("hook start: %d %s", rc, errb.String())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("hook start took %s on an open stdin", d)
	}
	if !strings.Contains(out.String(), "# agentx: engineer") {
		t.Errorf("stdout = %q", out.String())
	}
}

// A hook finish whose payload comes after the old 200 ms cut-off captures
// the session; one whose payload never comes warns, in the hook log too,
// and leaves the agent working (issue 31: it was a silent "ok" and "done").
func TestHookFinishLatePayload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	env := map[string]string{"NO_COLOR": "1"}
	mk := func(stdin io.Reader) *App {
		return &App{Stdin: stdin, Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] },
			Cwd: dir, Clock: clock.Real{}}
	}
	if rc := mk(strings.NewReader("")).Run(context.Background(), []string{"init"}); rc != 0 {
		t.Fatalf("init: %d %s", rc, errb.String())
	}
	transcript := filepath.Join(dir, "t.jsonl")
	line := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"We decided to keep the cache in memory."}]}}` + "\n"
	if err := os.WriteFile(transcript, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	r, w := io.Pipe()
	go func() {
		time.Sleep(2 * session.StdinFirst)
		_, _ = w.Write([]byte(`{"session_id":"s1","hook_event_name":"SessionEnd","cwd":"` + dir + `","transcript_path":"` + transcript + `"}`))
	}()
	out.Reset()
	if rc := mk(r).Run(context.Background(), []string{"hook", "finish", "--agent", "engineer", "--issue", "5"}); rc != 0 {
		t.Fatalf("hook finish: %d %s", rc, errb.String())
	}
	_ = w.Close()
	if !strings.Contains(out.String(), "Memory Capture") || !strings.Contains(out.String(), "1 decision") {
		t.Errorf("late payload not captured: %s\nstderr: %s", out.String(), errb.String())
	}
	logged, _ := os.ReadFile(filepath.Join(dir, ".agentx", "hook-log.jsonl"))
	if !strings.Contains(string(logged), `"command":"hook finish","host":"claude"`) {
		t.Errorf("hook log: %s", logged)
	}

	silent, hold := io.Pipe()
	defer func() { _ = hold.Close() }()
	errb.Reset()
	if rc := mk(silent).Run(context.Background(), []string{"hook", "finish", "--agent", "engineer", "--issue", "5", "--deadline", "1s"}); rc != 0 {
		t.Fatalf("hook finish: %d %s", rc, errb.String())
	}
	if !strings.Contains(errb.String(), session.MissingPayload) {
		t.Errorf("no warning for a payload that never came: %s", errb.String())
	}
	logged, _ = os.ReadFile(filepath.Join(dir, ".agentx", "hook-log.jsonl"))
	if last := lastLine(string(logged)); !strings.Contains(last, `"outcome":"warned"`) || !strings.Contains(last, "no host payload arrived") {
		t.Errorf("hook log's last run: %s", last)
	}
	out.Reset()
	if rc := mk(strings.NewReader("")).Run(context.Background(), []string{"state", "--json"}); rc != 0 || !strings.Contains(out.String(), `"status": "working"`) {
		t.Errorf("agent marked done without a payload: %s", out.String())
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
