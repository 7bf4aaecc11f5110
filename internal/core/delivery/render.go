package delivery

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/ledger"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// Limits of one delivered item's text: the hook's context is read by the
// model at every turn, so it stays compact; the whole thread is one
// command away.
const (
	maxTopic    = 200
	maxQuestion = 400
	maxBody     = 2000
	// maxText bounds the whole delivery (every host takes 8,000
	// characters at least).
	maxText = 7000
)

// Text renders delivered items for the model: one line saying what this
// is, then the stored text framed as data (sanitize.Framed), compact: id,
// question, answer, who.
func Text(items []Item, cli string) string {
	if len(items) == 0 {
		return ""
	}
	var head strings.Builder
	fmt.Fprintf(&head, "agentx: %s for your clarifications arrived while you worked (delivered once; `%s clarify show ID` prints a thread).", count(items), cli)
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString("\n")
		}
		tag := ""
		if it.Blocking {
			tag = ", blocking"
		}
		fmt.Fprintf(&b, "%s (issue #%d%s, to %s): %s\n", it.ID, it.Issue, tag, it.To, line(it.Topic, maxTopic))
		if it.Question != "" {
			fmt.Fprintf(&b, "Question: %s\n", line(it.Question, maxQuestion))
		}
		fmt.Fprintf(&b, "%s by %s: %s\n", verb(it.Type), it.By, line(it.Body, maxBody))
		switch {
		case it.Type == ledger.Answer && it.Status == ledger.Answered:
			fmt.Fprintf(&b, "Next: %s clarify resolve %s --body \"<what you decided>\" (or clarify ask %s --body \"<follow-up>\")\n", cli, it.ID, it.ID)
		case it.Type == ledger.Escalation:
			b.WriteString("A person settles it now; go on with what does not depend on it.\n")
		}
	}
	body := shorten.Text(strings.TrimRight(b.String(), "\n"), maxText)
	return head.String() + "\n" + sanitize.Framed(body)
}

func count(items []Item) string {
	if len(items) == 1 {
		return "1 " + noun(items[0].Type)
	}
	same := true
	for _, it := range items[1:] {
		same = same && it.Type == items[0].Type
	}
	if same {
		return fmt.Sprintf("%d %ss", len(items), noun(items[0].Type))
	}
	return fmt.Sprintf("%d updates", len(items))
}

func noun(t ledger.EntryType) string {
	switch t {
	case ledger.Resolution:
		return "resolution"
	case ledger.Escalation:
		return "escalation"
	}
	return "answer"
}

func verb(t ledger.EntryType) string {
	switch t {
	case ledger.Resolution:
		return "Resolved"
	case ledger.Escalation:
		return "Escalated"
	}
	return "Answer"
}

// line is stored text on one line: host tags and role labels neutralised
// before the breaks go, then cut.
func line(s string, limit int) string { return shorten.Line(sanitize.Neutralize(s), limit) }

// StopReason is the reason a Stop hook gives for going on: the answer the
// agent asked for and must not stop without.
func StopReason(items []Item, cli string) string {
	return "Do not stop yet: your blocking clarification was answered. Read it and continue your task with it.\n" + Text(items, cli)
}

// HostOutput is the hook's stdout in the host's form: context added to the
// model's next request (Claude Code and Codex: hookSpecificOutput with the
// event's name; Copilot CLI: additionalContext), or, for a stop (Claude
// Code and Codex Stop, Copilot agentStop), the decision to go on with the
// reason the model reads. text is printed as it is for any other host
// (a hook run by hand).
func HostOutput(host, event, text string, stop bool) []byte {
	var doc any
	switch {
	case stop && (host == "claude" || host == "codex" || host == "copilot"):
		doc = map[string]string{"decision": "block", "reason": text}
	case host == "claude" || host == "codex":
		doc = map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": text}}
	case host == "copilot":
		doc = map[string]string{"additionalContext": text}
	default:
		return []byte(text)
	}
	data, _ := json.Marshal(doc) // strings only: always marshals
	return append(data, '\n')
}
