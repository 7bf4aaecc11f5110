package intake

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// verbatimKey reports whether k is a payload field the intake reads as an
// identifier or a path: those are spooled as given (a transcript path that
// changed would not be found). Every other string in a payload is text a
// host copied from the session (compact_summary, last_assistant_message, a
// prompt). A switch, not a map literal: a map is built at every process
// start.
func verbatimKey(k string) bool {
	switch k {
	case "session_id", "sessionId", "transcript_path", "transcriptPath",
		"hook_event_name", "hookEventName", "cwd", "turn_id", "timestamp":
		return true
	}
	return false
}

// Sanitized is the entry as it may be written to disk: the summary and
// every text field of the payload with private regions removed and
// secrets redacted (sanitize.Clean, nothing cut). A hook killed after the
// spool write leaves this on disk, so it holds nothing that memory would
// not. Capture sanitises again on the way to memory; the sanitiser is
// idempotent, so the observations are the same.
func (e Entry) Sanitized() (Entry, error) {
	e.Summary = sanitize.Clean(e.Summary)
	if len(e.Payload) == 0 {
		return e, nil
	}
	dec := json.NewDecoder(bytes.NewReader(e.Payload))
	dec.UseNumber() // numbers kept as written
	var v any
	if err := dec.Decode(&v); err != nil {
		return e, fmt.Errorf("hook payload: %w", err)
	}
	v, changed := cleanValue(v, false)
	if !changed {
		return e, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return e, fmt.Errorf("hook payload: %w", err)
	}
	e.Payload = json.RawMessage(bytes.TrimRight(b.Bytes(), "\n"))
	return e, nil
}

// cleanValue sanitises the strings of a decoded JSON value, but for the
// values of the verbatim keys (verbatimKey) at the top level.
func cleanValue(v any, nested bool) (any, bool) {
	switch x := v.(type) {
	case string:
		c := sanitize.Clean(x)
		return c, c != x
	case []any:
		changed := false
		for i := range x {
			var ch bool
			x[i], ch = cleanValue(x[i], true)
			changed = changed || ch
		}
		return x, changed
	case map[string]any:
		changed := false
		for k, val := range x {
			if !nested && verbatimKey(k) {
				continue
			}
			var ch bool
			x[k], ch = cleanValue(val, true)
			changed = changed || ch
		}
		return x, changed
	}
	return v, false
}
