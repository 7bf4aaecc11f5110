package sync

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/protocol"
)

// Sanitizer cleans text before it leaves for GitHub: secrets and
// <private> content removed, @mentions neutralised so a mirror never pings
// anyone. The action wires the core sanitiser in; this package only
// requires that one runs.
type Sanitizer func(string) string

// Want is one comment the issue should carry.
type Want struct {
	Marker
	// Body is the full comment, marker included.
	Body string
}

// Render renders thread entry seq of rec for people: who asked whom, the
// round, the text, and for escalations what settles it. It depends only on
// the entry and the record's fixed fields (never the current status), so a
// status change does not edit old comments. The returned body ends with the
// marker carrying a hash of the visible text.
func Render(rec *ledger.Record, seq int, clean Sanitizer) Want {
	return RenderFor(rec, seq, clean, nil)
}

// RenderFor is Render with a question to a person mentioning them (issue
// 34) and saying how they answer (mention may be nil).
func RenderFor(rec *ledger.Record, seq int, clean Sanitizer, mention Mentions) Want {
	e := rec.Thread[seq]
	var b strings.Builder
	text := quote(clean(e.Body))
	who, from, to := bold(e.From), bold(rec.From), bold(rec.To)
	switch e.Type {
	case ledger.Question:
		verb := "asked"
		if e.Round > 1 {
			verb = "asked a follow-up of"
		}
		fmt.Fprintf(&b, "**Clarification %s** · round %d of %d%s\n\n", rec.ID, e.Round, rec.MaxRounds, blockingTag(rec))
		fmt.Fprintf(&b, "%s %s %s about **%s**:\n\n%s\n", who, verb, to, inline(clean(rec.Topic)), text)
		personAsked(&b, rec, mention)
	case ledger.Answer:
		fmt.Fprintf(&b, "**Clarification %s** · round %d of %d\n\n", rec.ID, e.Round, rec.MaxRounds)
		fmt.Fprintf(&b, "%s answered %s:\n\n%s\n", who, from, text)
	case ledger.Resolution:
		verb := "resolved"
		if strings.HasPrefix(e.Body, "Abandoned: ") {
			verb = "abandoned"
		}
		fmt.Fprintf(&b, "**Clarification %s** · %s after %d round(s)\n\n", rec.ID, verb, e.Round)
		fmt.Fprintf(&b, "%s %s it:\n\n%s\n", who, verb, text)
	case ledger.Escalation:
		fmt.Fprintf(&b, "**Clarification %s** · escalated to a person at round %d of %d\n\n", rec.ID, e.Round, rec.MaxRounds)
		fmt.Fprintf(&b, "%s escalated the question between %s and %s about **%s**:\n\n", who, from, to, inline(clean(rec.Topic)))
		fmt.Fprintf(&b, "```text\n%s\n```\n\n", strings.ReplaceAll(clean(e.Body), "```", "'''"))
		fmt.Fprintf(&b, "To settle it here, comment one of:\n\n")
		fmt.Fprintf(&b, "- `/clarify %s %s <decision>`\n- `/clarify %s %s <why>`\n", protocol.Resolve, rec.ID, protocol.Abandon, rec.ID)
	default:
		fmt.Fprintf(&b, "**Clarification %s** · %s by %s\n\n%s\n", rec.ID, inline(Unmention(string(e.Type))), who, text)
	}
	b.WriteString(readBy(rec, &e, clean))
	visible := b.String()
	sum := sha256.Sum256([]byte(visible))
	m := Marker{Key: Key{ID: rec.ID, Seq: seq}, Round: e.Round, Type: e.Type, Hash: hex.EncodeToString(sum[:6])}
	return Want{Marker: m, Body: visible + "\n" + m.String()}
}

// readBy is the line an answer, resolution or escalation gets once it was
// delivered into a running session of the agent that asked (its receipt,
// issue 34): the comment is edited when the receipt reaches the state
// branch, so the person who answered sees it was read.
func readBy(rec *ledger.Record, e *ledger.Entry, clean Sanitizer) string {
	if !rec.ForRequester(e) {
		return ""
	}
	rc, ok := e.Receipt()
	if !ok {
		return ""
	}
	who := rec.From
	if rc.Agent != "" {
		who = rc.Agent
	}
	where := ""
	if rc.Host != "" {
		where = " in a " + inline(clean(rc.Host)) + " session"
	}
	return fmt.Sprintf("\n_Read by %s%s at %s._\n", bold(who), where, inline(clean(rc.At)))
}

func blockingTag(rec *ledger.Record) string {
	if rec.Blocking {
		return " · blocking"
	}
	return ""
}

// bold renders a name. A ledger may name an agent "@alice" or a team
// "@org/team": the name is neutralised like any text, whatever the
// sanitiser wired in.
func bold(name string) string { return "**" + inline(Unmention(name)) + "**" }

// inline keeps a short field on one line and unable to open markup a
// marker parser would see.
func inline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "*", "\\*")
	return strings.ReplaceAll(s, "<!--", "&lt;!--")
}

// codeSpan renders s on one line as Markdown inline code, where GitHub
// renders no link, image, mention or HTML: the fence is one backtick longer
// than the longest run inside, and the spaces around the text keep a
// backtick at either end from joining the fence (CommonMark strips one
// space on each side). An HTML comment opener is escaped as in inline, so
// no marker parses in it.
func codeSpan(s string) string {
	s = strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "<!--", "<!\u200b--")
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	return fence + " " + s + " " + fence
}

// quote renders a body as a Markdown block quote. An HTML comment opener
// is escaped so agent text can never carry a marker that parses.
func quote(s string) string {
	s = strings.ReplaceAll(strings.TrimRight(s, "\n"), "<!--", "&lt;!--")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}
