package intake

import "testing"

// TestVerbatimKeySwitch holds verbatimKey (a switch since issue 35: a map
// literal is built at every process start) to the keys the map held.
func TestVerbatimKeySwitch(t *testing.T) {
	for _, k := range []string{"session_id", "sessionId", "transcript_path", "transcriptPath",
		"hook_event_name", "hookEventName", "cwd", "turn_id", "timestamp"} {
		if !verbatimKey(k) {
			t.Errorf("verbatimKey(%q) = false", k)
		}
	}
	for _, k := range []string{"", "prompt", "compact_summary", "last_assistant_message", "Cwd"} {
		if verbatimKey(k) {
			t.Errorf("verbatimKey(%q) = true", k)
		}
	}
}
