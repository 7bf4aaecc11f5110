package checkpoint

import (
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/shorten"
)

// MinIDLen is the shortest id prefix accepted: fewer digits would match
// by accident.
const MinIDLen = 4

// ParseID checks a checkpoint id given on the command line: 4 to 40
// hexadecimal digits, a prefix of the commit hash (upper case accepted).
// It returns the prefix in lower case.
func ParseID(id string) (string, error) {
	if len(id) < MinIDLen || len(id) > 40 {
		return "", errcode.New(errcode.InvalidInput, "checkpoint id %q must be %d to 40 hexadecimal digits", shorten.Line(id, 48), MinIDLen).
			WithHint("`agentx-hook checkpoint list` shows the ids")
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", errcode.New(errcode.InvalidInput, "checkpoint id %q is not hexadecimal", shorten.Line(id, 48)).
				WithHint("`agentx-hook checkpoint list` shows the ids")
		}
	}
	return strings.ToLower(id), nil
}
