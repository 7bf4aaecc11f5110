package router

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/render"
)

// Text is how a clarify command reports what op (a verb, or "requested")
// did, for people: the new id of a request, else the record's round and
// status; a responder's answer; an escalation's summary line in red with
// the rest of its body.
func (r *Result) Text(st render.Style, op string) string {
	rec := &r.Record
	var b strings.Builder
	switch {
	case op == "requested":
		fmt.Fprintln(&b, rec.ID)
	case r.Escalated:
		fmt.Fprintf(&b, "%s escalated (round %d/%d)\n", rec.ID, rec.Round, rec.MaxRounds)
	default:
		fmt.Fprintf(&b, "%s %s (round %d/%d, status %s)\n", rec.ID, protocol.Past(op), rec.Round, rec.MaxRounds, rec.Status)
	}
	if r.Answer != "" {
		fmt.Fprintf(&b, "%s answered (round %d):\n%s\n", rec.To, rec.Round, r.Answer)
	}
	if r.Escalated {
		if e := rec.LastOf(ledger.Escalation); e != nil {
			first, rest, more := strings.Cut(e.Body, "\n")
			fmt.Fprintln(&b, st.Red(first))
			if more {
				fmt.Fprintln(&b, rest)
			}
		}
	}
	return b.String()
}
