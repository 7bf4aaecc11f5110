package hookcmd

import (
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"testing"
	"time"
)

func TestParseHookPayload(t *testing.T) {
	tests := []struct {
		in      string
		isJSON  bool
		session string
		cwd     string
	}{
		{`{"session_id":"abc","transcript_path":"/t.jsonl","hook_event_name":"SessionStart","cwd":"/repo","source":"startup"}`, true, "abc", "/repo"},
		{"  \n{\"session_id\": \"x\"}\n", true, "x", ""},
		{"", false, "", ""},
		{"## Decisions\n- Use middleware for validation", false, "", ""},
		{`{"session_id": 12}`, false, "", ""},
		{`{broken`, false, "", ""},
		{`[1,2]`, false, "", ""},
	}
	for _, tt := range tests {
		p, isJSON := parseHookPayload([]byte(tt.in))
		if isJSON != tt.isJSON || p.SessionID != tt.session || p.Cwd != tt.cwd {
			t.Errorf("parseHookPayload(%q) = %+v, %v", tt.in, p, isJSON)
		}
	}
}

func FuzzParseHookPayload(f *testing.F) {
	f.Add([]byte(`{"session_id":"abc","cwd":"/repo","hook_event_name":"SessionStart"}`))
	f.Add([]byte("plain summary text"))
	f.Add([]byte(`{"cwd":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, isJSON := parseHookPayload(data)
		if !isJSON && p != (hookPayload{}) {
			t.Fatalf("non-JSON input left fields set: %+v", p)
		}
	})
}

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
