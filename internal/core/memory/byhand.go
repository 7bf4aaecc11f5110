package memory

import (
	"strings"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// ByHandText is the text of an observation stored by hand (`memory add`,
// the MCP server's memory_remember) as it may reach disk, by the same rule
// as a capture: within the SPEC's size limit, no private part or secret.
// redacted reports that something was removed.
func ByHandText(text string) (clean string, redacted bool, err error) {
	if n := utf8.RuneCountInString(text); n > sanitize.MaxChars {
		return "", false, errcode.New(errcode.InvalidInput, "observation is %d characters, the limit is %d", n, sanitize.MaxChars)
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
