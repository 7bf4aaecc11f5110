// Package validate owns the protocol's input rules (SPEC section 6.3):
// agent names, topics, bodies, issue numbers and clarification ids. Every
// surface (CLI, hooks, issue comments) checks input here before the core
// acts on it, and no file path is built from anything that did not pass.
package validate

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// Limits of SPEC section 6.3.
const (
	MaxTopic  = 200
	MaxBody   = 2000
	MaxIssue  = 1_000_000_000
	MaxAgent  = 64
	minIDDigs = 3
)

// Agent checks an agent name: [a-z0-9][a-z0-9-]*.
func Agent(field, name string) error {
	if name == "" {
		return errcode.New(errcode.InvalidInput, "%s: agent name is empty", field)
	}
	if len(name) > MaxAgent {
		return errcode.New(errcode.InvalidInput, "%s: agent name is %d characters, the limit is %d", field, len(name), MaxAgent)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || (c == '-' && i > 0)
		if !ok {
			return errcode.New(errcode.InvalidInput, "%s: agent name %q must match [a-z0-9][a-z0-9-]*", field, name)
		}
	}
	return nil
}

// Text checks a non-empty text of at most limit characters.
func Text(field, s string, limit int) error {
	if strings.TrimSpace(s) == "" {
		return errcode.New(errcode.InvalidInput, "%s is empty (1 to %d characters)", field, limit)
	}
	if !utf8.ValidString(s) {
		return errcode.New(errcode.InvalidInput, "%s is not valid UTF-8", field)
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return errcode.New(errcode.InvalidInput, "%s is %d characters, the limit is %d", field, n, limit)
	}
	return nil
}

// Topic checks a topic: one line of 1-200 characters (it heads listings,
// comments and escalation summaries).
func Topic(s string) error {
	if err := Text("topic", s, MaxTopic); err != nil {
		return err
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return errcode.New(errcode.InvalidInput, "topic must be one line without control characters (found %q)", r)
		}
	}
	return nil
}

// Body checks a question or answer body (1-2000 characters).
func Body(field, s string) error { return Text(field, s, MaxBody) }

// Issue parses an issue number: digits only, 1 to 10^9.
func Issue(s string) (int, error) {
	s = strings.TrimPrefix(s, "#")
	if s == "" {
		return 0, errcode.New(errcode.InvalidInput, "issue number is empty")
	}
	if len(s) > 10 {
		return 0, errcode.New(errcode.InvalidInput, "issue number %q is out of range 1 to %d", s, MaxIssue)
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, errcode.New(errcode.InvalidInput, "issue number %q must be digits only", s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxIssue {
		return 0, errcode.New(errcode.InvalidInput, "issue number %q is out of range 1 to %d", s, MaxIssue)
	}
	return n, nil
}

// IssueNumber checks an already parsed issue number.
func IssueNumber(n int) error {
	if n < 1 || n > MaxIssue {
		return errcode.New(errcode.InvalidInput, "issue number %d is out of range 1 to %d", n, MaxIssue)
	}
	return nil
}

// ClarificationID parses `CLR-<issue>-<3+ digits>` and returns the issue.
func ClarificationID(id string) (int, error) {
	rest, ok := strings.CutPrefix(id, "CLR-")
	if !ok {
		return 0, errcode.New(errcode.InvalidInput, "clarification id %q must look like CLR-<issue>-<NNN>", id)
	}
	issueStr, seq, ok := strings.Cut(rest, "-")
	if !ok || len(seq) < minIDDigs {
		return 0, errcode.New(errcode.InvalidInput, "clarification id %q must look like CLR-<issue>-<NNN>", id)
	}
	for _, c := range seq {
		if c < '0' || c > '9' {
			return 0, errcode.New(errcode.InvalidInput, "clarification id %q must look like CLR-<issue>-<NNN>", id)
		}
	}
	if len(seq) > 9 {
		return 0, errcode.New(errcode.InvalidInput, "clarification id %q has too many digits", id)
	}
	n, err := Issue(issueStr)
	if err != nil {
		return 0, errcode.New(errcode.InvalidInput, "clarification id %q: %s", id, err.Error())
	}
	return n, nil
}
