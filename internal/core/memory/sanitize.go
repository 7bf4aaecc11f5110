package memory

import (
	"encoding/json"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// sanitized is o as the store writes it: every text it holds through the
// one egress sanitiser (content and summary through sanitize.Text, the
// session id and the keys other tools wrote through sanitize.Clean, string
// values inside them included). Callers sanitise too (capture must, to
// dedupe what it stores); the store does it again because it is the one
// place every writer passes (issue 26: the unknown keys of a
// `memory add --file` record reached disk as written). Sanitising is
// idempotent, so text already clean is stored as it came.
func (o Observation) sanitized() Observation {
	o.Content = sanitize.Text(o.Content)
	if o.Summary != "" {
		o.Summary = sanitize.Text(o.Summary)
	}
	o.SessionID = sanitize.Clean(o.SessionID)
	if len(o.Extra) > 0 {
		extra := make([]jsonfile.Field, len(o.Extra))
		for i, f := range o.Extra {
			extra[i] = jsonfile.Field{Key: sanitize.Clean(f.Key), Value: sanitizeJSON(f.Value)}
		}
		o.Extra = extra
	}
	return o
}

// sanitizeJSON returns v with every string in it sanitised (v itself when
// nothing changes or it does not decode).
func sanitizeJSON(v json.RawMessage) json.RawMessage {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return v
	}
	y, changed := sanitizeValue(x)
	if !changed {
		return v
	}
	out, err := json.Marshal(y)
	if err != nil {
		return v
	}
	return out
}

func sanitizeValue(x any) (any, bool) {
	switch x := x.(type) {
	case string:
		c := sanitize.Clean(x)
		return c, c != x
	case []any:
		changed := false
		for i, e := range x {
			var c bool
			x[i], c = sanitizeValue(e)
			changed = changed || c
		}
		return x, changed
	case map[string]any:
		out := make(map[string]any, len(x))
		changed := false
		for k, e := range x {
			v, c := sanitizeValue(e)
			ck := sanitize.Clean(k)
			out[ck] = v
			changed = changed || c || ck != k
		}
		return out, changed
	}
	return x, false
}
