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
// redacted reports that something was removed.
func ByHandText(text string) (clean string, redacted bool, err error) {
	if n := utf8.RuneCountInString(text); n > sanitize.MaxChars {
		return "", false, errcode.New(errcode.InvalidInput, "observation is %d characters, the limit is %d", n, sanitize.MaxChars)
	}
	if !utf8.ValidString(text) {
		// As a clarify topic or body: the sanitiser would store U+FFFD
		// in place of the bytes, and call that a redaction.
		return "", false, errcode.New(errcode.InvalidInput, "observation is not valid UTF-8")
	}
	clean = strings.TrimSpace(sanitize.Text(text))
	if clean == text {
		return text, false, nil
	}
	if clean == "" {
		return "", false, errcode.New(errcode.InvalidInput, "nothing left to store once private parts and secrets are removed")
	}
	return clean, true, nil
}

// ErrNoText is ByHand given no text: a usage error of the command.
var ErrNoText = errors.New("no observation text")

// ByHand is one observation a person stores (`memory add`), checked in the
// order the command reports: a known category, the agent (by checkAgent:
// the workflows' names), a valid issue, some text (ErrNoText), then the
// text cleaned by ByHandText (redacted says something was removed).
func ByHand(id, agent, issue, category, session, text string, checkAgent func(string) error) (o Observation, redacted bool, err error) {
	if !Category(category).Known() {
		return o, false, errcode.New(errcode.InvalidInput, "unknown category %q (decision, code-change, error, key-fact, compaction-summary)", category)
	}
	if err := checkAgent(agent); err != nil {
		return o, false, err
	}
	n, err := validate.Issue(issue)
	if err != nil {
		return o, false, err
	}
	if err := validate.Session("--session", session); err != nil {
		return o, false, err
	}
	if text == "" {
		return o, false, ErrNoText
	}
	clean, redacted, err := ByHandText(text)
	if err != nil {
		return o, false, err
	}
	return Observation{ID: id, Agent: agent, IssueNumber: n, Category: Category(category), Content: clean, SessionID: session}, redacted, nil
}
