package render

import (
	"fmt"
	"io"
	"time"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// PeopleInbox renders what waits for people (issue 34), each question
// with the command that answers it:
//
//	Waiting for people (1)
//	  [PENDING] CLR-42-001 [BLOCKING]  round 1/5, 3m, due in 3h57m
//	    engineer -> human:lead: cache policy
//	    > Redis or in-process?
//	    answer: agentx-hook clarify answer CLR-42-001 --as human:lead --body "..."
func PeopleInbox(w io.Writer, st Style, d *ledger.PeopleInboxDoc, cli string, now time.Time) {
	if len(d.Waiting) == 0 && len(d.Escalated) == 0 {
		who := "people"
		if d.Person != "" {
			who = tty(d.Person)
		}
		fmt.Fprintf(w, "Nothing waits for %s.\n", who)
		return
	}
	if len(d.Waiting) > 0 {
		fmt.Fprintln(w, st.Bold(fmt.Sprintf("Waiting for people (%d)", len(d.Waiting))))
		for i := range d.Waiting {
			r := &d.Waiting[i]
			head(w, st, r, now)
			if q := r.LastOf(ledger.Question); q != nil {
				fmt.Fprintf(w, "    %s\n", sanitize.Quote(tty(shorten.Line(q.Body, 300))))
			}
			as := r.To
			if name, _ := ledger.PersonTarget(r.To); name == "" {
				as = ledger.PersonTargetPrefix + "NAME"
				if d.Person != "" {
					as = ledger.PersonTargetPrefix + d.Person
				}
			}
			fmt.Fprintf(w, "    %s\n", st.Dim(fmt.Sprintf("answer: %s clarify answer %s --as %s --body \"...\"", cli, tty(r.ID), tty(as))))
		}
	}
	if len(d.Escalated) > 0 {
		if len(d.Waiting) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, st.Bold(fmt.Sprintf("Escalated to a person (%d)", len(d.Escalated))))
		for i := range d.Escalated {
			r := &d.Escalated[i]
			head(w, st, r, now)
			fmt.Fprintf(w, "    %s\n", st.Dim(fmt.Sprintf("decide: %s clarify resolve %s --as human:NAME --body \"...\"", cli, tty(r.ID))))
		}
	}
}

func head(w io.Writer, st Style, r *ledger.Record, now time.Time) {
	line := fmt.Sprintf("  %s %s", st.StatusTag(r.Status), tty(r.ID))
	if r.Blocking {
		line += " " + st.Red("[BLOCKING]")
	}
	meta := fmt.Sprintf("  issue #%d, round %d/%d, %s", r.IssueNumber, r.Round, r.MaxRounds, Age(now.Sub(r.CreatedTime())))
	if due := r.StaleAfterTime(); r.Status.Waiting() && !due.IsZero() {
		if left := due.Sub(now); left > 0 {
			meta += ", due in " + Age(left)
		} else {
			meta += ", overdue by " + Age(-left)
		}
	}
	fmt.Fprintln(w, line+st.Dim(meta))
	fmt.Fprintf(w, "    %s -> %s: %s\n", tty(r.From), tty(r.To), tty(topic(r.Topic)))
}
