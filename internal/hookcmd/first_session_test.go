package hookcmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/testbin"
)

// TestFirstSessionPerHost runs a new user's first two sessions in each
// host exactly as the host would (issue 21): `setup --HOST`, then the very
// commands setup wrote into the host's file, fed the payloads the host
// sends, with no AGENTX_* variable set, on a branch that names the issue.
// The second session must recall what the first one learned.
func TestFirstSessionPerHost(t *testing.T) {
	t.Parallel()
	fixtures := filepath.Join("..", "core", "capture", "testdata")
	for _, tt := range []struct {
		host, transcript, want string
		// commands extracts (start, finish) from the files setup wrote.
		commands func(t *testing.T, root string) (start, finish string)
		payload  func(event, transcript, cwd string) string
	}{
		{"claude", "claude_session.jsonl", "per-issue JSON files", claudeCommands, claudePayload},
		{"codex", "codex_rollout.jsonl", "Phase 3 weights", codexCommands, codexPayload},
		{"copilot", "copilot_events.jsonl", "mermaid", copilotCommands, copilotPayload},
	} {
		t.Run(tt.host, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			env := firstSessionEnv(root)
			sh(t, root, env, "", "git init -q && git checkout -q -b 42-fix-login")
			sh(t, root, env, "", "agentx-hook init >/dev/null && agentx-hook setup --"+tt.host+" --no-git-hooks >/dev/null 2>&1")
			start, finish := tt.commands(t, root)
			transcript := filepath.Join(root, "transcript.jsonl")
			data, err := os.ReadFile(filepath.Join(fixtures, tt.transcript))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(transcript, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if start != "" {
				out := sh(t, root, env, tt.payload("start", "", root), start)
				if !strings.Contains(out, "Nothing waits for you") {
					t.Fatalf("first start:\n%s", out)
				}
			}
			sh(t, root, env, tt.payload("finish", transcript, root), finish)
			var recalled string
			if start != "" {
				recalled = sh(t, root, env, tt.payload("start", "", root), start)
			} else {
				// Copilot ignores what a start hook prints: it reads the
				// instructions file its sessionEnd command wrote.
				b, err := os.ReadFile(filepath.Join(root, instructionsFile))
				if err != nil {
					t.Fatalf("no instructions file after the session's end: %v", err)
				}
				recalled = string(b)
			}
			if !strings.Contains(recalled, "Memory Recall") || !strings.Contains(recalled, tt.want) {
				t.Fatalf("the second session recalls nothing of the first (want %q):\n%s", tt.want, recalled)
			}
		})
	}
}

// firstSessionEnv is the process environment less every AGENTX_ variable,
// with a HOME of the test's own.
func firstSessionEnv(root string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AGENTX_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+root)
}

func sh(t *testing.T, dir string, env []string, stdin, script string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	// The hook's payload is in the pipe before the hook starts, as a
	// host's is (testbin.FilledPipe): never late on a loaded machine.
	in, err := testbin.FilledPipe([]byte(stdin))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Close() }()
	cmd.Stdin = in
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// hookCommands reads the command of the first hook of each event from a
// Claude Code or Codex hooks file.
func hookCommands(t *testing.T, path, startEvent, finishEvent string) (string, string) {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	get := func(event string) string {
		if len(doc.Hooks[event]) == 0 || len(doc.Hooks[event][0].Hooks) == 0 {
			t.Fatalf("%s has no %s hook", path, event)
		}
		return doc.Hooks[event][0].Hooks[0].Command
	}
	return get(startEvent), get(finishEvent)
}

func claudeCommands(t *testing.T, root string) (string, string) {
	return hookCommands(t, filepath.Join(root, ".claude", "settings.json"), "SessionStart", "SessionEnd")
}

func codexCommands(t *testing.T, root string) (string, string) {
	return hookCommands(t, filepath.Join(root, ".codex", "hooks.json"), "SessionStart", "Stop")
}

func copilotCommands(t *testing.T, root string) (string, string) {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Bash string `json:"bash"`
		} `json:"hooks"`
	}
	data, err := os.ReadFile(filepath.Join(root, ".github", "hooks", "agentx.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Hooks["sessionEnd"]) == 0 || len(doc.Hooks["sessionStart"]) == 0 {
		t.Fatalf("copilot hooks %v:\n%s", err, data)
	}
	// The session end's capture waits for the next start (Copilot writes
	// its last turns after the sessionEnd hook returns); that start,
	// Copilot's sessionStart hook, stores it and injects the recall.
	return doc.Hooks["sessionStart"][0].Bash, doc.Hooks["sessionEnd"][0].Bash
}

func jsonPayload(t map[string]any) string {
	b, _ := json.Marshal(t)
	return string(b)
}

func claudePayload(event, transcript, cwd string) string {
	if event == "start" {
		return jsonPayload(map[string]any{"session_id": "s2", "transcript_path": filepath.Join(cwd, "new.jsonl"), "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"})
	}
	return jsonPayload(map[string]any{"session_id": "8f4c2a1e-5b7d-4e9a-a3c1-2d6f0b9e7a41", "transcript_path": transcript, "cwd": cwd,
		"permission_mode": "default", "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
}

func codexPayload(event, transcript, cwd string) string {
	if event == "start" {
		return jsonPayload(map[string]any{"session_id": "s2", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup", "model": "gpt-5-codex"})
	}
	return jsonPayload(map[string]any{"session_id": "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "transcript_path": transcript, "cwd": cwd,
		"hook_event_name": "Stop", "model": "gpt-5-codex", "turn_id": "7", "stop_hook_active": false})
}

func copilotPayload(_, transcript, cwd string) string {
	return jsonPayload(map[string]any{"timestamp": 1772535600000, "cwd": cwd, "sessionId": "c0ffee00-1234-4abc-9def-001122334455",
		"transcriptPath": transcript, "reason": "complete"})
}
