package sync

import (
	"fmt"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/protocol"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
	"github.com/agentx-dev/agentx/internal/core/shorten"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// Command is one `/clarify` slash command from an issue comment.
type Command struct {
	Verb protocol.Verb // one of protocol.Verbs
	ID   string
	Text string
}

// ParseCommand finds the `/clarify` command in a comment: the first line a
// reader sees as text (not in a fenced or indented code block, not in an
// HTML comment, not quoted, not a lazy continuation of a quote) that starts
// with it. A command must be visible
// to be run: what GitHub hides cannot act. The text is the rest of that line
// and every line after it, with HTML comments removed. found is false when
// the comment holds no command at all; err describes a malformed one.
func ParseCommand(body string) (cmd Command, found bool, err error) {
	lines := visibleLines(body)
	for i, line := range lines {
		if !line.prose || line.quoted {
			continue
		}
		trimmed := strings.TrimSpace(line.text)
		rest, ok := strings.CutPrefix(trimmed, "/clarify")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return Command{}, true, fmt.Errorf("missing verb; use %s", protocol.SlashUsage())
		}
		verb := strings.ToLower(fields[0])
		v, known := protocol.Lookup(verb)
		if !known {
			return Command{}, true, fmt.Errorf("unknown verb %q; use %s", shorten.Ellipsis(sanitize.Secrets(fields[0]), 20), protocol.SlashUsage())
		}
		if len(fields) < 2 {
			return Command{}, true, fmt.Errorf("missing clarification id; use %s", protocol.SlashUsage())
		}
		id := strings.ToUpper(fields[1])
		if _, err := validate.ClarificationID(id); err != nil {
			return Command{}, true, fmt.Errorf("%q is not a clarification id (CLR-<issue>-<NNN>)", shorten.Ellipsis(sanitize.Secrets(fields[1]), 40))
		}
		// The text starts after the id on the same line.
		after := rest[strings.Index(rest, fields[1])+len(fields[1]):]
		parts := []string{after}
		for _, l := range lines[i+1:] {
			parts = append(parts, l.text)
		}
		text := strings.TrimSpace(strings.Join(parts, "\n"))
		if v.NeedsText && text == "" {
			return Command{}, true, fmt.Errorf("`/clarify %s %s` needs a text after the id", verb, id)
		}
		return Command{Verb: v.Verb, ID: id, Text: text}, true, nil
	}
	return Command{}, false, nil
}
