package hookcmd

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
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
	if rc := mk(r).Run(context.Background(), []string{"hook", "start", "--agent", "engineer"}); rc != 0 {
		t.Fatalf("hook start: %d %s", rc, errb.String())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("hook start took %s on an open stdin", d)
	}
	if !strings.Contains(out.String(), "# agentx: engineer") {
		t.Errorf("stdout = %q", out.String())
	}
}
