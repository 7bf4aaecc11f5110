package hostsettings

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex (0.169) runs a project's hook only once the user reviewed it
// (/hooks in Codex), and only while it is what was reviewed: the user's
// config.toml records, per hook, [hooks.state."<hooks.json path>:<event>:
// <group>:<handler>"] trusted_hash = "sha256:<hex>", the hash of the hook
// as Codex normalises it. A hook never reviewed, or changed since (setup
// rewrote it), is skipped without a word. CodexHookTrust recomputes the
// hashes so doctor can tell.

// Trust states of a Codex hook.
const (
	HookTrusted   = "trusted"
	HookUntrusted = "untrusted" // never reviewed
	HookModified  = "modified"  // reviewed, then changed
	HookDisabled  = "disabled"  // turned off in /hooks
)

// CodexHook is one of agentx's hooks in .codex/hooks.json and its trust.
type CodexHook struct {
	Event  string
	Key    string // the [hooks.state] key
	Hash   string // what Codex computes for it now
	Status string
}

// codexEventLabel is Codex's snake_case label of an event.
func codexEventLabel(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CodexHookTrust lists agentx's hooks in hooksJSON (the project's
// .codex/hooks.json, at the absolute path hooksPath) with their trust as
// userConfig (the user's Codex config.toml) records it.
func CodexHookTrust(hooksJSON []byte, hooksPath string, userConfig []byte) ([]CodexHook, error) {
	var file struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type          string   `json:"type"`
				Command       string   `json:"command"`
				Timeout       *float64 `json:"timeout"`
				TimeoutSec    *float64 `json:"timeoutSec"`
				Async         bool     `json:"async"`
				StatusMessage *string  `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(hooksJSON, &file); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	var state struct {
		Hooks struct {
			State map[string]struct {
				Enabled     *bool  `toml:"enabled"`
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if len(bytes.TrimSpace(userConfig)) > 0 {
		if err := checkSize(userConfig); err != nil {
			return nil, err
		}
		if _, err := toml.Decode(string(userConfig), &state); err != nil {
			return nil, fmt.Errorf("not valid TOML: %w", err)
		}
	}
	var out []CodexHook
	for _, ev := range codexHost().events {
		label := codexEventLabel(ev.event)
		for gi, g := range file.Hooks[ev.event] {
			for hi, h := range g.Hooks {
				if h.Type != "command" || !strings.Contains(h.Command, "agentx-hook hook ") {
					continue
				}
				timeout := 600
				if h.TimeoutSec != nil {
					timeout = int(*h.TimeoutSec)
				} else if h.Timeout != nil {
					timeout = int(*h.Timeout)
				}
				if ev.event == "SessionEnd" {
					if h.Timeout == nil && h.TimeoutSec == nil {
						timeout = 1
					}
					timeout = min(max(timeout, 1), 3)
				}
				timeout = max(timeout, 1)
				handler := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": h.Async}
				if h.StatusMessage != nil {
					handler["statusMessage"] = *h.StatusMessage
				}
				identity := map[string]any{"event_name": label, "hooks": []any{handler}}
				if g.Matcher != nil && ev.event != "Stop" && ev.event != "UserPromptSubmit" {
					identity["matcher"] = *g.Matcher
				}
				hash, err := codexHash(identity)
				if err != nil {
					return nil, err
				}
				key := hooksPath + ":" + label + ":" + strconv.Itoa(gi) + ":" + strconv.Itoa(hi)
				st := state.Hooks.State[key]
				status := HookUntrusted
				switch {
				case st.Enabled != nil && !*st.Enabled:
					status = HookDisabled
				case st.TrustedHash == hash:
					status = HookTrusted
				case st.TrustedHash != "":
					status = HookModified
				}
				out = append(out, CodexHook{Event: ev.event, Key: key, Hash: hash, Status: status})
			}
		}
	}
	return out, nil
}

// codexHash is Codex's version_for_toml: sha256 of the compact JSON with
// sorted keys (encoding/json sorts map keys), HTML left unescaped as
// serde_json leaves it.
func codexHash(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimRight(b.Bytes(), "\n"))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
