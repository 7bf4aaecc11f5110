package capture

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

// Host is the agent host that sent a hook payload.
type Host string

// Hosts whose hook payloads are understood.
const (
	Claude  Host = "claude"
	Copilot Host = "copilot"
	Codex   Host = "codex"
)

// Payload is a host hook's stdin, normalised across hosts.
//
//   - Claude Code: `{"session_id","transcript_path","cwd","hook_event_name":
//     "SessionEnd"|"Stop"|"PreCompact"|"PostCompact", "reason", "trigger",
//     "compact_summary", ...}`.
//   - Codex: the same snake_case fields plus `turn_id`, `model` and
//     `last_assistant_message` (Stop, PreCompact; Codex has no SessionEnd).
//   - Copilot CLI (`.github/hooks/*.json`): camelCase `{"sessionId",
//     "timestamp" (ms), "cwd", "transcriptPath", "reason"|"stopReason"}`
//     with no event name (it is the hook the command was configured for),
//     or, when the hook is configured with a PascalCase event name, the
//     snake_case fields above.
type Payload struct {
	Host                 Host
	Event                string
	SessionID            string
	TranscriptPath       string
	Cwd                  string
	Reason               string
	Trigger              string
	CompactSummary       string
	LastAssistantMessage string
	TurnID               string
	// endShape: a payload of sessionEnd's shape (a reason, no
	// stopReason), for a Copilot payload that names no event.
	endShape bool
}

// rawPayload accepts both key styles; the first non-empty one wins.
type rawPayload struct {
	SessionID            string          `json:"session_id"`
	SessionIDCamel       string          `json:"sessionId"`
	TranscriptPath       string          `json:"transcript_path"`
	TranscriptPathCamel  string          `json:"transcriptPath"`
	HookEventName        string          `json:"hook_event_name"`
	HookEventNameCamel   string          `json:"hookEventName"`
	Cwd                  string          `json:"cwd"`
	Reason               string          `json:"reason"`
	StopReason           string          `json:"stopReason"`
	Trigger              string          `json:"trigger"`
	CompactSummary       string          `json:"compact_summary"`
	CompactSummaryCamel  string          `json:"compactSummary"`
	LastAssistantMessage string          `json:"last_assistant_message"`
	TurnID               string          `json:"turn_id"`
	Timestamp            json.RawMessage `json:"timestamp"`
}

// LooksLikePayload reports whether stdin holds a JSON object (a hook
// payload) rather than a session summary in text.
func LooksLikePayload(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{'
}

// MaxPayloadBytes bounds a hook payload. Real ones are a few hundred bytes;
// PostCompact's summary and Codex's last message make them a few KB.
const MaxPayloadBytes = 4 << 20

// ParsePayload reads a hook payload and recognises its host by its fields:
// `turn_id` is Codex's, camelCase keys or a numeric timestamp are Copilot
// CLI's, `hook_event_name` alone is Claude Code's. A relative transcript
// path is resolved against the payload's cwd.
func ParsePayload(data []byte) (Payload, error) {
	p, err := decodePayload(data)
	if err == nil && p.Host == "" {
		err = errNoHostFields()
	}
	if err != nil {
		return Payload{}, err
	}
	return p, nil
}

func errNoHostFields() error {
	return errcode.New(errcode.InvalidInput,
		"hook payload has none of session_id, sessionId, hook_event_name, transcript_path")
}

// decodePayload is ParsePayload without the host check: a JSON object
// with none of the host fields decodes with Host "" (its cwd still says
// where the agent works).
func decodePayload(data []byte) (Payload, error) {
	if len(data) > MaxPayloadBytes {
		return Payload{}, errcode.New(errcode.InvalidInput, "hook payload is %d bytes, more than %d", len(data), MaxPayloadBytes)
	}
	var r rawPayload
	if err := json.Unmarshal(bytes.TrimPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("\ufeff")), &r); err != nil {
		return Payload{}, errcode.New(errcode.InvalidInput, "hook payload: %s", jsonfile.Explain(err))
	}
	p := Payload{
		SessionID:            first(r.SessionID, r.SessionIDCamel),
		TranscriptPath:       first(r.TranscriptPath, r.TranscriptPathCamel),
		Event:                first(r.HookEventName, r.HookEventNameCamel),
		Cwd:                  r.Cwd,
		Reason:               first(r.Reason, r.StopReason),
		Trigger:              r.Trigger,
		CompactSummary:       first(r.CompactSummary, r.CompactSummaryCamel),
		LastAssistantMessage: r.LastAssistantMessage,
		TurnID:               r.TurnID,
		endShape:             r.Reason != "" && r.StopReason == "",
	}
	numericTS := len(r.Timestamp) > 0 && r.Timestamp[0] >= '0' && r.Timestamp[0] <= '9'
	switch {
	case r.TurnID != "" || codexRollout(p.TranscriptPath):
		// SessionStart and SessionEnd carry no turn_id; their transcript
		// is still a Codex rollout.
		p.Host = Codex
	case r.SessionIDCamel != "" || r.TranscriptPathCamel != "" || r.HookEventNameCamel != "" || numericTS:
		p.Host = Copilot
	case r.HookEventName != "" || r.SessionID != "":
		p.Host = Claude
	}
	if p.TranscriptPath != "" && !filepath.IsAbs(p.TranscriptPath) && p.Cwd != "" {
		p.TranscriptPath = filepath.Join(p.Cwd, p.TranscriptPath)
	}
	return p, nil
}

// codexRollout reports a Codex rollout file
// (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl).
func codexRollout(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl")
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
