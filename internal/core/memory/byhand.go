package memory

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// ByHandText is the text of an observation stored by hand (`memory add`,
// the MCP server's memory_remember) as it may reach disk, by the same rule
// as a capture: within the SPEC's size limit, no private part or secret.
// changed says what the sanitiser did (spaces trimmed at the ends are
// no change).
func ByHandText(text string) (clean string, changed sanitize.Changes, err error) {
	if n := utf8.RuneCountInString(text); n > sanitize.MaxChars {
		return "", 0, errcode.New(errcode.InvalidInput, "observation is %d characters, the limit is %d", n, sanitize.MaxChars)
	}
	if !utf8.ValidString(text) {
		// As a clarify topic or body: the sanitiser would store U+FFFD
		// in place of the bytes, and call that a redaction.
		return "", 0, errcode.New(errcode.InvalidInput, "observation is not valid UTF-8")
	}
	clean, changed = sanitize.TextChanges(text)
	if clean = strings.TrimSpace(clean); clean == "" {
		return "", 0, errcode.New(errcode.InvalidInput, "nothing left to store once private parts and secrets are removed")
	}
	return clean, changed, nil
}

// ErrNoText is ByHand given no text: a usage error of the command.
var ErrNoText = errors.New("no observation text")

// ByHand is one observation a person stores (`memory add`), checked in the
// order the command reports: a known category, the agent (by checkAgent:
// the workflows' names), a valid issue, some text (ErrNoText), then the
// text cleaned by ByHandText (changed says what the sanitiser did).
func ByHand(id, agent, issue, category, session, text string, checkAgent func(string) error) (o Observation, changed sanitize.Changes, err error) {
	if !Category(category).Known() {
		return o, 0, errcode.New(errcode.InvalidInput, "unknown category %q (decision, code-change, error, key-fact, compaction-summary)", category)
	}
	if err := checkAgent(agent); err != nil {
		return o, 0, err
	}
	n, err := validate.Issue(issue)
	if err != nil {
		return o, 0, err
	}
	if err := validate.Session("--session", session); err != nil {
		return o, 0, err
	}
	if text == "" {
		return o, 0, ErrNoText
	}
	clean, changed, err := ByHandText(text)
	if err != nil {
		return o, 0, err
	}
	return Observation{ID: id, Agent: agent, IssueNumber: n, Category: Category(category), Content: clean, SessionID: session}, changed, nil
}
