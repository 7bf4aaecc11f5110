package capture

import (
	"bytes"
	"strings"
)

// Input is what a hook or `memory capture` read on stdin, parsed once and
// handed to everything that needs it (the hook's working directory, whether
// the session goes on, the capture itself).
type Input struct {
	// Raw is a JSON object as received (leading space and byte-order mark
	// trimmed); nil when the input is text.
	Raw []byte
	// Payload is Raw decoded. Its fields are set as far as Raw had them,
	// even when PayloadErr is set (a cwd alone is still a cwd).
	Payload Payload
	// PayloadErr says why Raw is not a host payload a capture can use: not
	// valid JSON of the payload's shape, or none of the host fields.
	PayloadErr error
	// Summary is non-JSON text, trimmed: a session summary in the old
	// compaction format.
	Summary string
	// Missing: stdin stayed open and nothing arrived within the hook's
	// wait. The host sent its payload too late or not at all, so what the
	// session did is unknown: nothing is captured and the session is not
	// taken for ended.
	Missing bool
}

// ParseInput reads stdin data: a JSON object is a hook payload (decoded
// here, once), anything else a session summary.
func ParseInput(data []byte) Input {
	if !LooksLikePayload(data) {
		return Input{Summary: strings.TrimSpace(string(data))}
	}
	in := Input{Raw: bytes.TrimRight(bytes.TrimLeft(data, " \t\r\n\ufeff"), " \t\r\n")}
	in.Payload, in.PayloadErr = decodePayload(in.Raw)
	if in.PayloadErr == nil && in.Payload.Host == "" {
		in.PayloadErr = errNoHostFields()
	}
	return in
}

// Empty reports that stdin held nothing to capture.
func (in *Input) Empty() bool { return len(in.Raw) == 0 && in.Summary == "" }

// IsPayload reports a usable host payload.
func (in *Input) IsPayload() bool { return len(in.Raw) > 0 && in.PayloadErr == nil }

// MidSession reports whether the payload comes from a hook that fires
// during a session (Claude Code Stop/PreCompact/PostCompact/SubagentStop,
// Codex Stop, Copilot agentStop, or any other event that is not a session
// end): `hook finish` then captures memory but the agent is still at
// work, so it is not marked done, and nothing of the session's end (push,
// checkpoint, retention) runs. Only a session end (or a hook run without
// a payload, by hand or from a script) means done.
func (in *Input) MidSession() bool {
	return in.Missing || in.IsPayload() && !in.Payload.SessionEnd()
}

// SetEvent names the host event the hook was wired for (`hook finish
// --event NAME`) when the payload names none: Copilot CLI sends the same
// camelCase shape for agentStop and sessionEnd without an event name.
func (in *Input) SetEvent(event string) {
	if event != "" && in.Payload.Event == "" {
		in.Payload.Event = event
	}
}

// SessionEnd reports whether the payload ends its session: SessionEnd by
// name (Claude Code, Codex; Copilot's sessionEnd), or a payload naming no
// event. A Copilot payload naming none is a session end only in
// sessionEnd's shape (a reason; 1.0.102 sends cwd, reason, sessionId,
// timestamp); agentStop's (a transcript, a stopReason or nothing) fires
// after every turn.
func (p Payload) SessionEnd() bool {
	switch strings.ToLower(p.Event) {
	case "sessionend":
		return true
	case "":
		if p.Host == Copilot {
			return p.endShape
		}
		return true
	}
	return false
}
