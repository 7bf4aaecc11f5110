package render

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentx-dev/agentx/internal/core/agentstatus"
	"github.com/agentx-dev/agentx/internal/core/clock"
)

// AgentTable is `state`'s table of agent statuses: what each agent does,
// on which issue and clarification, and how long ago it last acted.
func AgentTable(entries []agentstatus.Entry, now time.Time) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSTATUS\tISSUE\tCLARIFICATION\tDETAIL\tLAST ACTIVITY")
	for _, e := range entries {
		issue, clr, detail := "-", "-", ""
		if e.Issue != nil {
			issue = fmt.Sprintf("#%d", *e.Issue)
		}
		if e.ClarificationID != nil {
			clr = *e.ClarificationID
		}
		if e.WaitingOn != nil {
			detail = "waiting on " + *e.WaitingOn
		}
		if e.RespondingTo != nil {
			detail = "responding to " + *e.RespondingTo
		}
		age := "-"
		if t, err := clock.Parse(e.LastActivity); err == nil {
			age = Age(now.Sub(t))
			if now.Sub(t) >= 0 { // ahead of our clock: "just now" alone
				age += " ago"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Agent, e.Status.Status, issue, clr, detail, age)
	}
	_ = tw.Flush() // a strings.Builder does not fail
	return b.String()
}
