// Package validate owns the protocol's input rules (SPEC section 6.3):
// agent names, topics, bodies, issue numbers and clarification ids. Every
// surface (CLI, hooks, issue comments) checks input here before the core
// acts on it, and no file path is built from anything that did not pass.
package validate

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// Limits of SPEC section 6.3.
const (
	MaxTopic = 200
	MaxBody  = 2000
	MaxIssue = 1_000_000_000
	MaxAgent = 64
	// MaxSession bounds a session id (the hosts' are UUIDs): it is stored
	// in every observation of the session.
	MaxSession = 128
	minIDDigs  = 3
)

// Agent checks an agent name: [a-z0-9][a-z0-9-]*. The error names the
// first character that does not fit and its position, escaped, so a name
// made of escape codes is shown, not obeyed.
func Agent(field, name string) error { return nameRule(field, "agent name", name) }

// Person checks a person's name (a key of [people], --to human:NAME,
// --person): the rule of agent names, worded for a person.
func Person(field, name string) error { return nameRule(field, "person name", name) }

// name_ is Agent's and Person's rule; what says which is checked.
func nameRule(field, what, name string) error {
	if name == "" {
		return errcode.New(errcode.InvalidInput, "%s: %s is empty", field, what)
	}
	if len(name) > MaxAgent {
		return errcode.New(errcode.InvalidInput, "%s: %s is %d characters, the limit is %d", field, what, len(name), MaxAgent)
	}
	for i, r := range []rune(name) {
		ok := ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || (r == '-' && i > 0)
		if !ok {
			return errcode.New(errcode.InvalidInput, "%s: %s %q must match [a-z0-9][a-z0-9-]* (%s at position %d)",
				field, what, name, Describe(r), i+1)
		}
	}
	return nil
}

// Session checks a session id given by hand (memory add and memory
// capture --session; empty is none): it is stored in every observation
// of the session in the shared issue files and printed in listings, so
// one word of at most MaxSession characters, no control or invisible
// character, no space.
func Session(field, s string) error {
	if !utf8.ValidString(s) {
		return errcode.New(errcode.InvalidInput, "%s: session id is not valid UTF-8", field)
	}
	if n := utf8.RuneCountInString(s); n > MaxSession {
		return errcode.New(errcode.InvalidInput, "%s: session id is %d characters, the limit is %d", field, n, MaxSession)
	}
	for i, r := range []rune(s) {
		if sanitize.Invisible(r) || unicode.IsSpace(r) || zeroWidth(r) {
			return errcode.New(errcode.InvalidInput, "%s: session id %q holds %s at position %d", field, s, Describe(r), i+1)
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
// comments and escalation summaries) with no control character, no
// bidirectional override or isolate and no line separator, and at least
// one visible character (a topic of zero-width spaces looks empty).
func Topic(s string) error {
	if err := Text("topic", s, MaxTopic); err != nil {
		return err
	}
	visible := false
	for i, r := range []rune(s) {
		if sanitize.Invisible(r) {
			return errcode.New(errcode.InvalidInput, "topic must be one line without control characters (%s at position %d)", Describe(r), i+1)
		}
		visible = visible || !zeroWidth(r) && !unicode.IsSpace(r)
	}
	if !visible {
		return errcode.New(errcode.InvalidInput, "topic has no visible character (only spaces and zero-width characters such as %s)", Describe([]rune(s)[0]))
	}
	return nil
}

// Body checks a question or answer body (1-2000 characters) with no NUL.
// Other control characters are kept as written (a responder's coloured
// output, a pasted log) and stripped where text is printed to a terminal
// (sanitize.Terminal): issue 15 asks to reject them in topics and names,
// which head every listing, and to strip them from bodies on output.
func Body(field, s string) error {
	if err := Text(field, s, MaxBody); err != nil {
		return err
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return errcode.New(errcode.InvalidInput, "%s holds a NUL byte (%s at position %d)", field, Describe(0), utf8.RuneCountInString(s[:i])+1)
	}
	return nil
}

// zeroWidth reports the characters that take no room: zero-width space,
// joiners, word joiner, BOM, soft hyphen, Mongolian vowel separator.
func zeroWidth(r rune) bool {
	switch r {
	case 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad, 0x180e:
		return true
	}
	return false
}

// Describe names a character for an error message: its code point, and
// its name for the ones people meet (U+001B ESC, U+202E RIGHT-TO-LEFT
// OVERRIDE).
func Describe(r rune) string {
	names := map[rune]string{0: "NUL", 0x07: "BEL", 0x08: "BACKSPACE", 0x09: "TAB", 0x0a: "LINE FEED", 0x0d: "CARRIAGE RETURN",
		0x1b: "ESC", 0x7f: "DEL", 0x9b: "CSI", 0x9d: "OSC", 0x200b: "ZERO WIDTH SPACE", 0x200c: "ZERO WIDTH NON-JOINER",
		0x200d: "ZERO WIDTH JOINER", 0x2060: "WORD JOINER", 0xfeff: "ZERO WIDTH NO-BREAK SPACE", 0x2028: "LINE SEPARATOR",
		0x2029: "PARAGRAPH SEPARATOR", 0x202a: "LEFT-TO-RIGHT EMBEDDING", 0x202b: "RIGHT-TO-LEFT EMBEDDING",
		0x202c: "POP DIRECTIONAL FORMATTING", 0x202d: "LEFT-TO-RIGHT OVERRIDE", 0x202e: "RIGHT-TO-LEFT OVERRIDE",
		0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE",
		0x2069: "POP DIRECTIONAL ISOLATE"}
	if n, ok := names[r]; ok {
		return fmt.Sprintf("U+%04X %s", r, n)
	}
	if unicode.IsPrint(r) {
		return fmt.Sprintf("U+%04X %q", r, r)
	}
	return fmt.Sprintf("U+%04X", r)
}

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

// LedgerIssue parses the issue of an existing ledger: Issue, or 0, the
// old chat integration's ledger, which is read and acted on but never
// given new records.
func LedgerIssue(s string) (int, error) {
	if strings.TrimPrefix(s, "#") == "0" {
		return 0, nil
	}
	return Issue(s)
}

// LedgerIssueNumber checks an already parsed issue number of an existing
// ledger (0 to 10^9).
func LedgerIssueNumber(n int) error {
	if n == 0 {
		return nil
	}
	return IssueNumber(n)
}

// RecordID checks an id as found in a ledger: other tools wrote ids of
// other shapes (`clar-test-001`), so any one-line id of printable
// characters is accepted when the ledger is named.
func RecordID(id string) error {
	if strings.TrimSpace(id) == "" || len(id) > 128 {
		return errcode.New(errcode.InvalidInput, "clarification id %q must be 1 to 128 characters", id)
	}
	for i, r := range []rune(id) {
		if sanitize.Invisible(r) || unicode.IsSpace(r) {
			return errcode.New(errcode.InvalidInput, "clarification id %q holds %s at position %d", id, Describe(r), i+1)
		}
	}
	return nil
}

// ClarificationID parses `CLR-<issue>-<3+ digits>` and returns the issue
// (0 included: the old chat integration's ledger).
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
	n, err := LedgerIssue(issueStr)
	if err != nil {
		return 0, errcode.New(errcode.InvalidInput, "clarification id %q: %s", id, err.Error())
	}
	return n, nil
}
