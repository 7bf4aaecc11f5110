package capture

import (
	"testing"
)

// Moved from hookcmd's parseHookPayload test: stdin is parsed once, here.
func TestParseInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		isPayload bool
		session   string
		cwd       string
		summary   string
		mid       bool
	}{
		{`{"session_id":"abc","transcript_path":"/t.jsonl","hook_event_name":"SessionStart","cwd":"/repo","source":"startup"}`, true, "abc", "/repo", "", true},
		{"  \n{\"session_id\": \"x\"}\n", true, "x", "", "", false},
		{"\ufeff{\"session_id\":\"x\",\"hook_event_name\":\"Stop\"}", true, "x", "", "", true},
		{`{"sessionId":"c","hookEventName":"agentStop"}`, true, "c", "", "", true},
		// Copilot CLI 1.0.102 names no event: agentStop carries the
		// transcript, sessionEnd a reason and no transcript (issue 31).
		{`{"sessionId":"c","timestamp":1795902137000,"cwd":"/r","transcriptPath":"/h/.copilot/session-state/c/events.jsonl"}`, true, "c", "/r", "", true},
		{`{"sessionId":"c","timestamp":1795902137000,"cwd":"/r","transcriptPath":"/t","stopReason":"end_turn"}`, true, "c", "/r", "", true},
		{`{"cwd":"/r","reason":"complete","sessionId":"c","timestamp":1795902137000}`, true, "c", "/r", "", false},
		// Any named event but a session end goes on.
		{`{"session_id":"x","hook_event_name":"UserPromptSubmit"}`, true, "x", "", "", true},
		{`{"session_id":"x","hook_event_name":"SessionEnd","reason":"other"}`, true, "x", "", "", false},
		{`{"session_id":"x","hook_event_name":"sessionEnd"}`, true, "x", "", "", false},
		{"", false, "", "", "", false},
		{"## Decisions\n- Use middleware for validation\n", false, "", "", "## Decisions\n- Use middleware for validation", false},
		{`{"session_id": 12}`, false, "", "", "", false},
		{`{broken`, false, "", "", "", false},
		{`[1,2]`, false, "", "", "[1,2]", false},
		// No host field: not a payload, but its cwd still counts.
		{`{"cwd":"/repo","hook_event":"x"}`, false, "", "/repo", "", false},
	}
	for _, tt := range tests {
		in := ParseInput([]byte(tt.in))
		if in.IsPayload() != tt.isPayload || in.Payload.SessionID != tt.session || in.Payload.Cwd != tt.cwd ||
			in.Summary != tt.summary || in.MidSession() != tt.mid {
			t.Errorf("ParseInput(%q) = %+v (payload %v, mid %v)", tt.in, in, in.IsPayload(), in.MidSession())
		}
		if len(in.Raw) > 0 && in.PayloadErr == nil && in.Payload.Host == "" {
			t.Errorf("ParseInput(%q): a payload without a host", tt.in)
		}
	}
}

// The event a hook was wired for (`hook finish --event NAME`) names a
// payload that names none; a payload's own name wins.
func TestInputSetEvent(t *testing.T) {
	t.Parallel()
	in := ParseInput([]byte(`{"cwd":"/r","reason":"complete","sessionId":"c","timestamp":1}`))
	in.SetEvent("agentStop")
	if !in.MidSession() {
		t.Errorf("a payload run for agentStop is a session end")
	}
	in = ParseInput([]byte(`{"sessionId":"c","timestamp":1,"transcriptPath":"/t"}`))
	in.SetEvent("sessionEnd")
	if in.MidSession() || in.Payload.Event != "sessionEnd" {
		t.Errorf("a payload run for sessionEnd goes on: %+v", in.Payload)
	}
	in = ParseInput([]byte(`{"session_id":"x","hook_event_name":"Stop"}`))
	in.SetEvent("sessionEnd")
	if !in.MidSession() {
		t.Errorf("--event overrode the payload's own event name")
	}
}

func FuzzParseInput(f *testing.F) {
	f.Add([]byte(`{"session_id":"abc","cwd":"/repo","hook_event_name":"SessionStart"}`))
	f.Add([]byte("plain summary text"))
	f.Add([]byte(`{"cwd":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := ParseInput(data)
		if len(in.Raw) == 0 && in.Payload != (Payload{}) {
			t.Fatalf("non-JSON input left fields set: %+v", in.Payload)
		}
		if len(in.Raw) > 0 && in.Summary != "" {
			t.Fatal("both a payload and a summary")
		}
		_ = in.MidSession()
	})
}
