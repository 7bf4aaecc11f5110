package session

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/monitor"
	"github.com/agentx-dev/agentx/internal/core/recall"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/statemerge"
)

// clarificationSections are hook start's view of the protocol.
func (s *session) clarificationSections() []Section {
	cli, res := s.d.CLI, s.res
	var out []Section
	if len(res.Waiting) > 0 {
		out = append(out, waitingSection(res.Waiting, cli, res.Untrusted))
	}
	if len(res.Requests) > 0 {
		out = append(out, requestsSection(res.Requests, cli, res.Untrusted))
	}
	if len(res.Escalations) > 0 {
		var b strings.Builder
		for _, r := range res.Escalations {
			fmt.Fprintf(&b, "- %s %s -> %s: %s\n", r.ID, r.From, r.To, oneLine(r.Topic, 200))
			if e := r.LastOf(ledger.Escalation); e != nil {
				fmt.Fprintf(&b, "  %s\n", sanitize.Quote(oneLine(strings.SplitN(e.Body, "\n", 2)[0], 600)))
			}
			fmt.Fprintf(&b, "  A person settles it: %s clarify resolve %s --body \"<decision>\"\n", cli, r.ID)
		}
		out = append(out, Section{Title: fmt.Sprintf("Escalations on issue #%d", s.in.Issue), Body: sanitize.NotesLine + "\n" + strings.TrimRight(b.String(), "\n")})
	}
	if len(out) == 0 && res.unchecked {
		out = append(out, Section{Title: "Clarifications", Body: "Not checked: the hook's deadline passed first. `" + cli + " clarify` lists what is open."})
	} else if len(out) == 0 {
		out = append(out, Section{Title: "Clarifications", Body: "Nothing waits for you: no open clarifications involve " + s.in.Agent + "."})
	}
	return out
}

// untrustedLine marks a record verify's checks find rewritten (issue 32).
func untrustedLine(b *strings.Builder, marks map[string]string, id, cli string) {
	if why := marks[id]; why != "" {
		fmt.Fprintf(b, "  [UNTRUSTED: %s; `%s verify` says more]\n", oneLine(why, 400), cli)
	}
}

func requestsSection(recs []ledger.Record, cli string, marks map[string]string) Section {
	var b strings.Builder
	for _, r := range recs {
		tag := ""
		if r.Blocking {
			tag = ", BLOCKING"
		}
		fmt.Fprintf(&b, "- %s to %s (round %d/%d, %s%s): %s\n", r.ID, r.To, r.Round, r.MaxRounds, r.Status, tag, oneLine(r.Topic, 200))
		untrustedLine(&b, marks, r.ID, cli)
		if ans := r.LastOf(ledger.Answer); ans != nil {
			fmt.Fprintf(&b, "  Latest answer (%s):\n  %s\n", ans.From, sanitize.Quote(oneLine(ans.Body, 600)))
		}
		if r.Status == ledger.Answered {
			fmt.Fprintf(&b, "  Next: %s clarify resolve %s --body \"<what you decided>\"  (or clarify ask %s --body \"<follow-up>\")\n", cli, r.ID, r.ID)
		} else {
			fmt.Fprintf(&b, "  Waiting for %s since %s.\n", r.To, r.Created)
		}
	}
	return Section{Title: "Your open requests", Body: sanitize.NotesLine + "\n" + strings.TrimRight(b.String(), "\n")}
}

// maxWaitingShown bounds the questions a hook prints in full: blocking
// ones come first, and the rest are counted with the command that lists
// them, so a flood of questions cannot crowd out everything else.
const maxWaitingShown = 10

func waitingSection(recs []ledger.Record, cli string, marks map[string]string) Section {
	var b strings.Builder
	recs = append([]ledger.Record(nil), recs...)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Blocking && !recs[j].Blocking })
	hidden := 0
	if len(recs) > maxWaitingShown {
		hidden = len(recs) - maxWaitingShown
		recs = recs[:maxWaitingShown]
	}
	for _, r := range recs {
		tag := ""
		if r.Blocking {
			tag = ", BLOCKING: " + r.From + " cannot go on without it"
		}
		fmt.Fprintf(&b, "- %s from %s (round %d/%d, %s%s): %s\n", r.ID, r.From, r.Round, r.MaxRounds, r.Status, tag, oneLine(r.Topic, 200))
		untrustedLine(&b, marks, r.ID, cli)
		if q := r.LastOf(ledger.Question); q != nil {
			fmt.Fprintf(&b, "  Question:\n  %s\n", sanitize.Quote(oneLine(q.Body, 600)))
		}
		fmt.Fprintf(&b, "  Answer: %s clarify answer %s --body \"<answer>\"\n", cli, r.ID)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "- %d more wait for your answer: %s clarify --json lists them all\n", hidden, cli)
	}
	return Section{Title: "Clarifications waiting for your answer", Body: sanitize.NotesLine + "\n" + strings.TrimRight(b.String(), "\n")}
}

// oneLine is stored text (a topic, a body) inside one line of hook start's
// output: host tags and role labels neutralised before the line breaks
// go, then cut (issue 32).
func oneLine(s string, limit int) string { return shorten.Line(sanitize.Neutralize(s), limit) }

func monitorSection(rep *monitor.Report) (Section, bool) {
	if rep == nil {
		return Section{}, false
	}
	var b strings.Builder
	for _, act := range rep.Actions {
		if act.Kind == monitor.ActSkipped {
			continue
		}
		fmt.Fprintf(&b, "- %s %s: %s\n", act.ID, strings.ReplaceAll(act.Kind, "-", " "), act.Detail)
	}
	if b.Len() == 0 {
		return Section{}, false
	}
	return Section{Title: "Monitor", Body: strings.TrimRight(b.String(), "\n")}, true
}

// renamedSection tells the agent, in hook start's own output, which ids
// its pull renumbered: a warning on stderr is hidden by Claude Code, and
// an agent holding the old id would answer or resolve the wrong record.
func renamedSection(renames []statemerge.Rename) (Section, bool) {
	if len(renames) == 0 {
		return Section{}, false
	}
	var b strings.Builder
	for i, r := range renames {
		if i == 10 {
			fmt.Fprintf(&b, "- and %d more (`agentx-hook sync --json` lists them)\n", len(renames)-i)
			break
		}
		fmt.Fprintf(&b, "- %s is now %s (issue #%d): another clone had allocated %s first; use %s from now on.\n", r.From, r.To, r.Issue, r.From, r.To)
	}
	return Section{Title: "Renumbered clarifications", Body: strings.TrimRight(b.String(), "\n")}, true
}

// FitHost cuts a hook's context to what the host shows (Claude Code:
// 10,000 characters, more becomes a preview; Codex: about 2,500 tokens).
// Recall already sizes itself to the room left, so this only bites when the
// clarifications alone overflow; the note says how to see everything.
func FitHost(text, host string) string {
	limit := recall.ClaudeMaxChars
	switch host {
	case "codex":
		limit = recall.CodexMaxTokens * recall.CharsPerToken
	case "copilot":
		limit = recall.CopilotMaxChars
	}
	if len(text) <= limit {
		return text
	}
	note := "\n[agentx: cut to the host's limit; run `agentx-hook hook start` in a terminal to see everything]\n"
	cut := limit - len(note)
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + note
}

// Text renders sections as one markdown document headed by the agent, its
// issue and its status.
func Text(r *Result, sections []Section) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# agentx: %s", r.Agent)
	if r.HasIssue {
		fmt.Fprintf(&b, " on issue #%d", r.Issue)
	}
	if r.Status != "" {
		fmt.Fprintf(&b, " (status: %s)", r.Status)
	}
	b.WriteString("\n")
	for _, s := range sections {
		fmt.Fprintf(&b, "\n## %s\n%s\n", s.Title, s.Body)
	}
	return b.String()
}
