package intake

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/capture"
)

// Copilot CLI 1.0.102 (issue 31): agentStop fires before the turn's last
// message is in events.jsonl, and sessionEnd names no transcript. The
// agentStop capture stops at the last turn that ended; sessionEnd finds
// the transcript from the session's cursor, else from Copilot's session
// state, and captures the rest. Before the fix the decision of the last
// turn was lost.
func TestCopilotSessionCapturedWhole(t *testing.T) {
	t.Parallel()
	const id = "6d87fe27-01ef-4671-9a2b-32fc7035d248"
	turn1 := `{"type":"assistant.turn_start","data":{"turnId":"0"}}
{"type":"assistant.message","data":{"content":"We decided to keep the cache in memory."}}
{"type":"assistant.turn_end","data":{"turnId":"0"}}
{"type":"assistant.turn_start","data":{"turnId":"1"}}
`
	turn2 := `{"type":"assistant.message","data":{"content":"We decided to store the index on disk."}}
{"type":"assistant.turn_end","data":{"turnId":"1"}}
`
	for _, tt := range []struct {
		name      string
		agentStop bool // an agentStop capture ran first (a cursor exists)
	}{{"cursor", true}, {"session state", false}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x, st, warnings := newIntake(t)
			x.CopilotSessions = filepath.Join(t.TempDir(), "session-state")
			transcript := filepath.Join(x.CopilotSessions, id, "events.jsonl")
			if !tt.agentStop {
				// The cursor's path wins: the session state is only the
				// fallback, so put the file where only it points.
				_ = os.MkdirAll(filepath.Dir(transcript), 0o700)
			} else {
				transcript = filepath.Join(t.TempDir(), "events.jsonl")
				_ = os.MkdirAll(x.CopilotSessions, 0o700)
			}
			if err := os.WriteFile(transcript, []byte(turn1), 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.agentStop {
				stop := `{"sessionId":"` + id + `","timestamp":1,"cwd":"/r","transcriptPath":"` + transcript + `"}`
				capt(t, x, stop)
			}
			f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.WriteString(turn2)
			_ = f.Close()
			capt(t, x, `{"cwd":"/r","reason":"complete","sessionId":"`+id+`","timestamp":2}`)
			// Deferred to the next hook start (Copilot flushes its last
			// turns after the sessionEnd hook returns): nothing of turn 2
			// is stored until then.
			for _, o := range st.obs {
				if strings.Contains(o.Content, "index on disk") {
					t.Fatalf("sessionEnd captured before Copilot could flush: %s", o.Content)
				}
			}
			if reps := x.Leftovers(context.Background()); len(reps) != 1 {
				t.Fatalf("the next start finished %d spooled captures, want 1", len(reps))
			}
			var got []string
			for _, o := range st.obs {
				got = append(got, o.Content)
			}
			all := strings.Join(got, "\n")
			if strings.Count(all, "cache in memory") != 1 || strings.Count(all, "index on disk") != 1 {
				t.Errorf("stored:\n%s\nwarnings: %q", all, *warnings)
			}
		})
	}
}

func capt(t *testing.T, x *Intake, payload string) {
	t.Helper()
	in := capture.ParseInput([]byte(payload))
	c, err := New("engineer", 42, &in, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Durably(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

// A session end whose unread transcript is past DeferOver is spooled and
// left for the next hook start (issue 31: Claude Code cuts SessionEnd
// hooks at 1.5 s, Codex at its timeout); a short one is stored at once.
func TestDeferOver(t *testing.T) {
	t.Parallel()
	x, st, _ := newIntake(t)
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	line := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"We decided to keep the cache in memory."}]}}` + "\n"
	if err := os.WriteFile(transcript, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	x.DeferOver = int64(len(line)) - 1
	in := capture.ParseInput([]byte(`{"session_id":"s1","hook_event_name":"SessionEnd","transcript_path":"` + transcript + `"}`))
	c, err := New("engineer", 42, &in, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := x.Durably(context.Background(), c)
	if err != nil || !rep.Deferred || len(st.obs) != 0 {
		t.Fatalf("long session end: %+v, %v, %d stored", rep, err, len(st.obs))
	}
	x.DeferOver = 0
	reps := x.Leftovers(context.Background())
	if len(reps) != 1 || len(st.obs) != 1 || !strings.Contains(reps[0].Line(), "deferred") {
		t.Fatalf("leftovers: %+v, %d stored", reps, len(st.obs))
	}
	x.DeferOver = int64(len(line)) * 2
	in = capture.ParseInput([]byte(`{"session_id":"s2","hook_event_name":"SessionEnd","transcript_path":"` + transcript + `"}`))
	c, _ = New("engineer", 43, &in, "")
	if rep, err := x.Durably(context.Background(), c); err != nil || rep.Deferred {
		t.Fatalf("short session end deferred: %+v, %v", rep, err)
	}
}

// Copilot writes events.jsonl lazily: at an agentStop it may not exist.
// That is no warning and no capture, and the sessionEnd that follows is
// not taken for the agentStop already done (both name no readable
// transcript): the next start captures the whole session. Before, the
// two shared a spool key and the decision was never stored (the
// real-host suite lost 3 of 5).
func TestCopilotTranscriptWrittenAfterTheSession(t *testing.T) {
	t.Parallel()
	const id = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	x, st, warnings := newIntake(t)
	x.CopilotSessions = filepath.Join(t.TempDir(), "session-state")
	transcript := filepath.Join(x.CopilotSessions, id, "events.jsonl")
	capt(t, x, `{"sessionId":"`+id+`","timestamp":1,"cwd":"/r","transcriptPath":"`+transcript+`","stopReason":"end_turn"}`)
	capt(t, x, `{"cwd":"/r","reason":"complete","sessionId":"`+id+`","timestamp":2}`)
	if len(*warnings) != 0 || len(st.obs) != 0 {
		t.Fatalf("before Copilot wrote its transcript: warnings %q, stored %d", *warnings, len(st.obs))
	}
	_ = os.MkdirAll(filepath.Dir(transcript), 0o700)
	turn := `{"type":"assistant.turn_start","data":{"turnId":"0"}}
{"type":"assistant.message","data":{"content":"We decided to key the limiter by account."}}
{"type":"assistant.turn_end","data":{"turnId":"0"}}
`
	if err := os.WriteFile(transcript, []byte(turn), 0o600); err != nil {
		t.Fatal(err)
	}
	if reps := x.Leftovers(context.Background()); len(reps) != 1 {
		t.Fatalf("the next start finished %d spooled captures, want 1", len(reps))
	}
	if len(st.obs) != 1 || !strings.Contains(st.obs[0].Content, "limiter by account") {
		t.Errorf("stored %+v", st.obs)
	}
}
