// Package render owns how clarifications read to people: the list, thread
// and escalation shapes users of the old CLI know, as plain text with
// optional styling. The caller decides whether styling applies (a terminal
// without NO_COLOR); this package never looks at the terminal.
package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/contenthash"
	"github.com/agentx-dev/agentx/internal/core/lazy"
	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// Style decorates text. The zero value prints plain text.
type Style struct {
	Color bool
}

const (
	reset  = "\x1b[0m"
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	blue   = "\x1b[34m"
	cyan   = "\x1b[36m"
)

// Sequences are the escape sequences Style writes: a printer that strips
// control sequences from text written by others keeps these, and only these.
func Sequences() []string { return []string{reset, bold, dim, red, green, yellow, blue, cyan} }

func (s Style) wrap(code, text string) string {
	if !s.Color {
		return text
	}
	return code + text + reset
}

// Bold renders text in bold.
func (s Style) Bold(text string) string { return s.wrap(bold, text) }

// Dim renders secondary text.
func (s Style) Dim(text string) string { return s.wrap(dim, text) }

// Red renders errors.
func (s Style) Red(text string) string { return s.wrap(red, text) }

// Green renders success.
func (s Style) Green(text string) string { return s.wrap(green, text) }

// Yellow renders warnings.
func (s Style) Yellow(text string) string { return s.wrap(yellow, text) }

// StatusTag renders `[PENDING]` and friends.
func (s Style) StatusTag(st ledger.Status) string {
	tag := "[" + tty(strings.ToUpper(string(st))) + "]"
	switch st {
	case ledger.Pending:
		return s.wrap(yellow, tag)
	case ledger.Answered:
		return s.wrap(blue, tag)
	case ledger.Resolved:
		return s.wrap(green, tag)
	case ledger.Stale, ledger.Escalated:
		return s.wrap(red, tag)
	default:
		return s.wrap(dim, tag)
	}
}

// List renders records grouped by issue, the old CLI's table:
//
//	Issue #42
//	[PENDING] CLR-42-001 [BLOCKING]
//	  engineer -> architect: authentication flow
func List(w io.Writer, st Style, recs []ledger.Record, now time.Time) {
	ListMarked(w, st, recs, now, nil)
}

// ListMarked is List with the records verify's checks find rewritten
// marked under their lines (record id -> why, issue 32), as ThreadsMarked
// marks them.
func ListMarked(w io.Writer, st Style, recs []ledger.Record, now time.Time, marks map[string]string) {
	sorted := append([]ledger.Record(nil), recs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].IssueNumber < sorted[j].IssueNumber })
	issue := -1
	for _, r := range sorted {
		if r.IssueNumber != issue {
			if issue != -1 {
				fmt.Fprintln(w)
			}
			issue = r.IssueNumber
			fmt.Fprintf(w, "  %s\n", st.Bold(fmt.Sprintf("Issue #%d", issue)))
		}
		line := fmt.Sprintf("  %s %s", st.StatusTag(r.Status), tty(r.ID))
		if r.Blocking {
			line += " " + st.Red("[BLOCKING]")
		}
		line += st.Dim(fmt.Sprintf("  round %d/%d, %s", r.Round, r.MaxRounds, Age(now.Sub(r.CreatedTime()))))
		if n := len(r.Undelivered()); n > 0 {
			line += " " + st.Yellow(fmt.Sprintf("[%d undelivered to %s]", n, tty(r.From)))
		}
		fmt.Fprintln(w, line)
		fmt.Fprintf(w, "    %s -> %s: %s\n", tty(r.From), tty(r.To), tty(topic(r.Topic)))
		if why := marks[r.ID]; why != "" {
			fmt.Fprintln(w, "    "+st.Red("[UNTRUSTED: "+tty(why)+"; `agentx-hook verify` says more]"))
		}
	}
}

// Threads renders every record of recs by Thread, a blank line between,
// under the line that frames their bodies as recorded data (issue 32).
func Threads(w io.Writer, st Style, recs []ledger.Record) { ThreadsMarked(w, st, recs, nil) }

// ThreadsMarked is Threads with the records verify's checks find
// rewritten marked (record id -> why, issue 32).
func ThreadsMarked(w io.Writer, st Style, recs []ledger.Record, marks map[string]string) {
	if len(recs) > 0 {
		fmt.Fprintln(w, st.Dim(sanitize.NotesLine))
	}
	for i := range recs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if why := marks[recs[i].ID]; why != "" {
			fmt.Fprintln(w, "  "+st.Red("[UNTRUSTED: "+tty(why)+"; `agentx-hook verify` says more]"))
		}
		Thread(w, st, &recs[i])
	}
}

// Thread renders one record with its conversation:
//
//	CLR-42-001 | engineer -> architect
//	Topic: authentication flow  Status: pending  Round: 1/5  BLOCKING
//
//	[Round 1] engineer -- QUESTION (17:04)
//	Middleware or controller?
func Thread(w io.Writer, st Style, r *ledger.Record) {
	fmt.Fprintf(w, "  %s | %s -> %s\n", st.Bold(tty(r.ID)), tty(r.From), tty(r.To))
	mode := "NON-BLOCKING"
	if r.Blocking {
		mode = "BLOCKING"
	}
	fmt.Fprintf(w, "  Topic: %s  Status: %s  Round: %d/%d  %s\n", tty(topic(r.Topic)), tty(string(r.Status)), r.Round, r.MaxRounds, mode)
	for _, e := range r.Thread {
		fmt.Fprintln(w)
		hhmm := e.Timestamp
		if t, err := clock.Parse(e.Timestamp); err == nil {
			hhmm = t.UTC().Format("15:04")
		}
		head := fmt.Sprintf("[Round %d] %s -- %s (%s)", e.Round, tty(e.From), tty(strings.ToUpper(string(e.Type))), tty(hhmm))
		switch e.Type {
		case ledger.Escalation:
			head = st.Red(head)
		case ledger.Resolution:
			head = st.Green(head)
		default:
			head = st.Bold(head)
		}
		if e.Integrity() == contenthash.Tampered {
			// What an agent reads must be what was written: a changed
			// entry is shown, but marked, never passed off as stored.
			head += " " + st.Red("[TAMPERED: changed since it was written; `agentx-hook verify` names it]")
		}
		head += receiptTag(st, r, &e)
		fmt.Fprintf(w, "  %s\n", head)
		// The body is stored text: quoted as data, every line (issue 32).
		for _, line := range strings.Split(sanitize.Quote(tty(lineBreaks.Get().Replace(e.Body))), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}

// receiptTag marks an answer, resolution or escalation for the requester:
// when and into which session it was delivered (issue 34), or that it
// was not yet.
func receiptTag(st Style, r *ledger.Record, e *ledger.Entry) string {
	if !r.ForRequester(e) {
		return ""
	}
	rc, ok := e.Receipt()
	if !ok {
		return " " + st.Yellow("[undelivered]")
	}
	when := rc.At
	if t, err := clock.Parse(rc.At); err == nil {
		when = t.UTC().Format("15:04")
	}
	where := shortSession(rc.Session)
	if rc.Host != "" {
		where = rc.Host + " " + where
	}
	return " " + st.Dim(fmt.Sprintf("[delivered %s to %s session %s]", tty(when), tty(r.From), tty(where)))
}

// shortSession is a session id cut to what tells sessions apart.
func shortSession(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// topic is a record's topic on one line, host tags and role labels
// neutralised: stored text, shown inside agentx's own line.
func topic(s string) string { return strings.Join(strings.Fields(sanitize.Neutralize(s)), " ") }

// lineBreaks turns every character a quote reads as a line break into
// '\n' before tty, which would drop them (a role line after one must
// still start its own quoted line), and tty runs before the quote so an
// escape sequence goes whole, not just its ESC byte.
var lineBreaks = lazy.Value[*strings.Replacer]{New: func() *strings.Replacer {
	return strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n")
}}

// tty strips what a terminal would obey in text read from a ledger (any
// process, person or branch may have written it): escape sequences,
// control characters, bidirectional overrides. List and Thread print to
// terminals and to pipes alike; neither wants them.
func tty(s string) string { return sanitize.Terminal(s) }

// EscalationMarkdown renders an escalation for chat and issue comments:
// `> **[ESCALATED]** Clarification *topic* (CLR-42-002) could not be
// resolved.` followed by the agents, rounds, conversation and the command.
func EscalationMarkdown(r *ledger.Record, cli string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "> **[ESCALATED]** Clarification *%s* (%s) could not be resolved.\n>\n", r.Topic, r.ID)
	fmt.Fprintf(&b, "> **Agents:** %s -> %s  \n> **Rounds:** %d of %d\n>\n", r.From, r.To, r.Round, r.MaxRounds)
	for _, e := range r.Thread {
		if e.Type == ledger.Escalation {
			continue
		}
		fmt.Fprintf(&b, "> **[Round %d] %s** (%s): %s\n", e.Round, e.From, e.Type, strings.Join(strings.Fields(e.Body), " "))
	}
	fmt.Fprintf(&b, ">\n> Resolve with `%s clarify %s %s --body \"<decision>\"` or comment `/clarify %s %s <decision>`.\n",
		cli, protocol.Resolve, r.ID, protocol.Resolve, r.ID)
	return b.String()
}

// Age renders a duration the way a person reads an age: 45s, 12m, 3h, 2d.
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}
