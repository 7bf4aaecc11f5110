package capture

import "bytes"

// A turn that has ended, for a host that fires its per-turn hook before
// the turn is all written (Copilot CLI's agentStop, issue 31).

// copilotTurnEnd is how Copilot CLI writes a turn's end in events.jsonl
// (compact JSON, type first). Inside a JSON string the quotes would be
// escaped, so the bytes only match the line's own type.
var copilotTurnEnd = []byte(`"type":"assistant.turn_end"`)

// completeTurns is the length of data up to the end of the line of its
// last turn end (0 when no turn ended).
func completeTurns(data []byte) int {
	i := bytes.LastIndex(data, copilotTurnEnd)
	if i < 0 {
		return 0
	}
	nl := bytes.IndexByte(data[i:], '\n')
	if nl < 0 {
		return len(data) // the last line, complete if it is valid JSON
	}
	return i + nl + 1
}
