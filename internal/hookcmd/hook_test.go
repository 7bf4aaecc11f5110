package hookcmd

import (
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"testing"
	"time"
)

func TestApplyTestClock(t *testing.T) {
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
