// The hooks' payloads: ParsePayload for each host, a capture from a
// payload or from the hook's raw input (a summary or a payload), and the
// key of a turn.

package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

func TestParsePayload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file                    string
		host                    Host
		event, session, reason  string
		transcriptSuffix, extra string
	}{
		{"claude_sessionend.json", Claude, "SessionEnd", "8f4c2a1e-5b7d-4e9a-a3c1-2d6f0b9e7a41", "prompt_input_exit", ".jsonl", ""},
		{"claude_postcompact.json", Claude, "PostCompact", "8f4c2a1e-5b7d-4e9a-a3c1-2d6f0b9e7a41", "", ".jsonl", "## Decisions"},
		{"codex_stop.json", Codex, "Stop", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "", "0199a1b2.jsonl", "Phase 3 weights"},
		{"copilot_sessionend.json", Copilot, "", "c0ffee00-1234-4abc-9def-001122334455", "complete", "events.jsonl", ""},
		{"copilot_agentstop.json", Copilot, "", "c0ffee00-1234-4abc-9def-001122334455", "end_turn", "events.jsonl", ""},
		// Codex 0.169: SessionEnd has no turn_id; its rollout says Codex.
		{"codex_sessionend.json", Codex, "SessionEnd", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "other", "0199a1b2.jsonl", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := read(t, tt.file)
			if !LooksLikePayload(data) {
				t.Fatal("not recognised as a payload")
			}
			p, err := ParsePayload(data)
			if err != nil {
				t.Fatal(err)
			}
			if p.Host != tt.host || p.Event != tt.event || p.SessionID != tt.session || p.Reason != tt.reason ||
				!strings.HasSuffix(p.TranscriptPath, tt.transcriptSuffix) || p.Cwd != "/home/dev/agentx" {
				t.Errorf("got %+v", p)
			}
			if tt.extra != "" && !strings.Contains(p.CompactSummary+p.LastAssistantMessage, tt.extra) {
				t.Errorf("extra field lost: %+v", p)
			}
		})
	}
	for _, bad := range []string{"", "[]", "not json", `{"foo":1}`, `{"session_id":`} {
		if _, err := ParsePayload([]byte(bad)); err == nil {
			t.Errorf("ParsePayload(%q) accepted", bad)
		}
	}
	if LooksLikePayload([]byte("## Decisions\n- x")) {
		t.Error("a summary taken for a payload")
	}
	p, _ := ParsePayload([]byte(`{"sessionId":"s","cwd":"/w","transcriptPath":"t.jsonl"}`))
	if p.TranscriptPath != "/w/t.jsonl" {
		t.Errorf("relative transcript path: %q", p.TranscriptPath)
	}
}

// copyTranscript puts a fixture where a payload can point at it.
func copyTranscript(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, read(t, name), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFromPayload(t *testing.T) {
	t.Parallel()
	path := copyTranscript(t, "claude_session.jsonl")
	p := Payload{Host: Claude, Event: "PostCompact", SessionID: "s", TranscriptPath: path, Cwd: "/home/dev/agentx",
		CompactSummary: "Compacted: the per-issue store is done; the manifest is created on first write."}
	res, err := FromPayload(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Candidates[0]; c.Category != memory.CompactionSummary || !strings.HasPrefix(c.Content, "Compacted: the per-issue") {
		t.Fatalf("first candidate %s", c)
	}
	checkCandidates(t, res.Candidates, []want{{memory.Decision, "per-issue JSON files"}})

	// Codex Stop without a transcript: the last message is what there is.
	res, err = FromPayload(Payload{Host: Codex, LastAssistantMessage: "I'll use the SPEC's Phase 3 weights for recall scoring."}, Options{})
	if err != nil || len(res.Candidates) != 1 || res.Candidates[0].Category != memory.Decision {
		t.Fatalf("codex last message: %v %s", err, dump(res.Candidates))
	}
	if _, err := FromPayload(Payload{TranscriptPath: filepath.Join(t.TempDir(), "missing.jsonl")}, Options{}); err == nil {
		t.Fatal("missing transcript accepted")
	}
}

func TestFromInput(t *testing.T) {
	t.Parallel()
	res, p, err := FromInput(read(t, "summary_reference.md"), Options{})
	if err != nil || p.Host != "" || len(res.Candidates) != 4 {
		t.Fatalf("summary: %v %+v %d", err, p, len(res.Candidates))
	}
	path := copyTranscript(t, "codex_rollout.jsonl")
	payload := fmt.Sprintf(`{"session_id":"x","turn_id":"3","transcript_path":%q,"cwd":"/home/dev/agentx","hook_event_name":"Stop"}`, path)
	res, p, err = FromInput([]byte(payload), Options{})
	if err != nil || p.Host != Codex || len(res.Candidates) < 5 {
		t.Fatalf("payload: %v %+v\n%s", err, p, dump(res.Candidates))
	}
	if _, _, err := FromInput([]byte(`{"nothing":1}`), Options{}); err == nil {
		t.Fatal("unrecognised payload accepted")
	}
	if SourceTokens(0) != 0 || SourceTokens(1) != 1 || SourceTokens(8) != 2 {
		t.Fatal("SourceTokens")
	}
}

func TestTurnKey(t *testing.T) {
	t.Parallel()
	path := copyTranscript(t, "claude_session.jsonl")
	p := Payload{Host: Claude, SessionID: "s1", TranscriptPath: path}
	k1 := TurnKey(p)
	if k1 != TurnKey(Payload{Host: Claude, SessionID: "s1", TranscriptPath: path, Event: "SessionEnd"}) {
		t.Fatal("Stop and SessionEnd of one turn have different keys")
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"next turn"}]}}` + "\n")
	f.Close()
	if TurnKey(p) == k1 {
		t.Fatal("a new turn kept the old key")
	}
	if TurnKey(Payload{SessionID: "s2"}) == TurnKey(Payload{SessionID: "s3"}) {
		t.Fatal("sessions without transcripts share a key")
	}
}
