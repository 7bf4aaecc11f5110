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
		{`{"session_id":"abc","transcript_path":"/t.jsonl","hook_event_name":"SessionStart","cwd":"/repo","source":"startup"}`, true, "abc", "/repo", "", false},
		{"  \n{\"session_id\": \"x\"}\n", true, "x", "", "", false},
		{"\ufeff{\"session_id\":\"x\",\"hook_event_name\":\"Stop\"}", true, "x", "", "", true},
		{`{"sessionId":"c","hookEventName":"agentStop"}`, true, "c", "", "", true},
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
