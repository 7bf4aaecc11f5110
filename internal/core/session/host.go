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

// SkippedNotice is what a host shows when `hook start` did nothing: Claude
// Code hides a successful hook's stderr, so a user would only see nothing
// happen. ok is false for hosts and events with no such channel.
func SkippedNotice(host, event, why string) (doc []byte, ok bool) {
	if event != EventStart || host != "claude" && host != "codex" {
		return nil, false
	}
	msg := "agentx did nothing this session: " + why
	doc, err := SessionStart(msg, msg)
	return doc, err == nil
}
