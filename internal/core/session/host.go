package session

import "github.com/agentx-dev/agentx/internal/core/jsonfile"

// SessionStart is text in the SessionStart hook output form of Claude
// Code, which Codex takes too: additionalContext for the agent and, when
// systemMessage is not "", a line the host shows the user. It is the
// host's format, not one of agentx's --json documents.
func SessionStart(text, systemMessage string) ([]byte, error) {
	doc := map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "SessionStart", "additionalContext": text}}
	if systemMessage != "" {
		doc["systemMessage"] = systemMessage
	}
	return jsonfile.Marshal(doc)
}

// CopilotStart is text in the form Copilot CLI reads from a sessionStart
// hook: {"additionalContext": ...}, which 1.0.102 adds to the session's
// context (its docs said it ignored a start hook's output).
func CopilotStart(text string) ([]byte, error) {
	return jsonfile.Marshal(map[string]string{"additionalContext": text})
}

// SkippedNotice is what a host shows when `hook start` did nothing: Claude
// Code hides a successful hook's stderr, so a user would only see nothing
// happen. ok is false for hosts and events with no such channel.
func SkippedNotice(host, event, why string) (doc []byte, ok bool) {
	if event != EventStart || host != "claude" && host != "codex" && host != "copilot" {
		return nil, false
	}
	msg := "agentx did nothing this session: " + why
	if host == "copilot" {
		doc, err := CopilotStart(msg)
		return doc, err == nil
	}
	doc, err := SessionStart(msg, msg)
	return doc, err == nil
}
