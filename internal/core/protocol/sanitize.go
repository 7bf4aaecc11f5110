package protocol

import (
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// sanitized returns op with every text it stores sanitised (sanitize.Clean:
// private regions removed, secrets redacted, nothing cut). Validation ran
// on the text as given, so the limits users see are those of what they
// typed. A required text that was private through and through is refused
// rather than stored empty; an optional one falls back to its default.
func sanitized(op Op) (Op, error) {
	raw := op
	op.Text = sanitize.Clean(op.Text)
	op.Topic = sanitize.Clean(op.Topic)
	op.Reason = sanitize.Clean(op.Reason)
	op.Detail = sanitize.Clean(op.Detail)
	op.By = sanitize.Clean(op.By) // --as NAME: free text, into `from` and the audit actor
	if raw.Topic != "" && blank(op.Topic) {
		return op, errcode.New(errcode.InvalidInput, "topic holds nothing but private text")
	}
	if raw.Text != "" && blank(op.Text) {
		switch op.Verb {
		case Request, Answer, Ask:
			field := "question"
			if f := info(op.Verb).Field; f != "" {
				field = f
			}
			return op, errcode.New(errcode.InvalidInput, "%s holds nothing but private text", field)
		}
		op.Text = "" // Resolve and Abandon take their default, Escalate none
	}
	return op, nil
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }
