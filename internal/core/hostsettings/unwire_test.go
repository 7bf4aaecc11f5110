package hostsettings

import (
	"strings"
	"testing"
)

// Wire then Unwire gives back the file as it was, or no file when setup
// created it; the user's entries stay.
func TestUnwireUndoesWire(t *testing.T) {
	t.Parallel()
	userClaude := "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"echo hello\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"
	for _, tt := range []struct {
		name   string
		host   string
		before Files
	}{
		{"claude, no file", Claude, Files{}},
		{"claude, user's file", Claude, Files{".claude/settings.json": []byte(userClaude)}},
		{"codex, no files", Codex, Files{}},
		{"codex, user's config", Codex, Files{CodexConfig: []byte("model = \"o4\"\n\n[features]\nweb_search = true\n")}},
		{"codex, config with other tables", Codex, Files{CodexConfig: []byte("model = \"o4\"\n\n[mcp_servers.x]\ncommand = \"x\"\n")}},
		{"copilot, no file", Copilot, Files{}},
		{"copilot, user's hooks", Copilot, Files{".github/hooks/agentx.json": []byte("{\n  \"version\": 1,\n  \"hooks\": {\n    \"sessionStart\": [\n      {\n        \"bash\": \"./log.sh\"\n      }\n    ]\n  }\n}\n")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := For(tt.host)
			wired := apply(t, tt.before, mustEdits(t)(Wire(h, tt.before, "")))
			if w, err := Inspect(h, wired); err != nil || len(w.Missing) != 0 {
				t.Fatalf("after Wire: %+v, %v", w, err)
			}
			back := apply(t, wired, mustEdits(t)(Unwire(h, wired)))
			for _, p := range h.Paths() {
				want, had := tt.before[p]
				got, has := back[p]
				if had != has || string(got) != string(want) {
					t.Errorf("%s: got %q (exists %v), want %q (exists %v)", p, got, has, want, had)
				}
			}
			again := mustEdits(t)(Unwire(h, back))
			for _, e := range again {
				if e.Changes() {
					t.Errorf("a second Unwire changes %s", e.Path)
				}
			}
		})
	}
}

// Codex's flag stays while another hook in hooks.json needs it.
func TestUnwireKeepsCodexFlagForOtherHooks(t *testing.T) {
	t.Parallel()
	h, _ := For(Codex)
	before := Files{".codex/hooks.json": []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}}`)}
	wired := apply(t, before, mustEdits(t)(Wire(h, before, "engineer")))
	if w, _ := Inspect(h, wired); strings.Join(w.Agents, ",") != "engineer" {
		t.Errorf("agents %q", w.Agents)
	}
	edits := mustEdits(t)(Unwire(h, wired))
	// config.toml loses the MCP server setup registered, not the flag.
	if edits[0].Action != Updated || edits[1].Action != Updated {
		t.Fatalf("actions %s, %s", edits[0].Action, edits[1].Action)
	}
	if cfg := string(edits[1].New); !strings.Contains(cfg, "hooks = true") || strings.Contains(cfg, "codex_hooks") || strings.Contains(cfg, "mcp_servers") {
		t.Errorf("config.toml:\n%s", cfg)
	}
	if !strings.Contains(string(edits[0].New), "./mine.sh") || strings.Contains(string(edits[0].New), "agentx-hook") {
		t.Errorf("hooks.json:\n%s", edits[0].New)
	}
}

func TestUnwireRefusesCorrupt(t *testing.T) {
	t.Parallel()
	h, _ := For(Claude)
	_, err := Unwire(h, Files{".claude/settings.json": []byte(`{"hooks": `)})
	if fe, ok := err.(*FileError); !ok || fe.Path != ".claude/settings.json" || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("err = %v", err)
	}
	big := Files{".claude/settings.json": []byte(`{"x": "` + strings.Repeat("a", MaxFileSize) + `"}`)}
	if _, err := Wire(h, big, ""); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("large file: %v", err)
	}
}

func TestCodexHooksFeatureAndTrust(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                  FeatureUnset,
		"[features]\ncodex_hooks = true\n":  FeatureOn,
		"[features]\nhooks = true\n":        FeatureOn,
		"[features]\ncodex_hooks = false\n": FeatureOff,
		"[features]\ncodex_hooks = true\nhooks = false\n": FeatureOff,
	} {
		if got, _, err := CodexHooksFeature([]byte(in)); err != nil || got != want {
			t.Errorf("%q: %s, %v; want %s", in, got, err, want)
		}
	}
	for in, want := range map[string]bool{"[features]\ncodex_hooks = true\n": true, "[features]\nhooks = true\n": false, "": false} {
		if _, deprecated, _ := CodexHooksFeature([]byte(in)); deprecated != want {
			t.Errorf("%q: deprecated %v", in, deprecated)
		}
	}
	cfg := []byte("[projects.\"/src/app\"]\ntrust_level = \"trusted\"\n[projects.\"/src/other\"]\ntrust_level = \"untrusted\"\n")
	for root, want := range map[string]bool{"/src/app": true, "/src/other": false, "/src/none": false} {
		if got, err := CodexTrusted(cfg, root); err != nil || got != want {
			t.Errorf("%s: %v, %v", root, got, err)
		}
	}
}

func mustEdits(t *testing.T) func([]Edit, error) []Edit {
	return func(e []Edit, err error) []Edit {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
}

// apply is what a caller does with edits: the files after them.
func apply(t *testing.T, files Files, edits []Edit) Files {
	t.Helper()
	out := Files{}
	for k, v := range files {
		out[k] = v
	}
	for _, e := range edits {
		switch e.Action {
		case Removed:
			delete(out, e.Path)
		case Created, Updated:
			out[e.Path] = e.New
		}
	}
	return out
}

// Codex reads hooks from config.toml's inline tables too: Inspect counts
// them ([hooks.state] is Codex's trust record, not an event).
func TestInspectCodexInline(t *testing.T) {
	t.Parallel()
	h, _ := For(Codex)
	cfg := "[[hooks.SessionStart]]\nmatcher = \"startup\"\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = \"agentx-hook hook start --format codex\"\n\n" +
		"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"./mine.sh\"\n\n[hooks.state.x]\ntrusted = \"agentx-hook hook finish\"\n"
	w, err := Inspect(h, Files{CodexConfig: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Exists || strings.Join(w.Wired, ",") != "SessionStart" || strings.Join(w.Missing, ",") != "Stop,PreCompact,SessionEnd,UserPromptSubmit,PostToolUse" {
		t.Errorf("%+v", w)
	}
}
