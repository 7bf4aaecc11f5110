package clock

import (
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

// ParseWhen reads a point in time as the commands take it (--since,
// --until, --older-than): an ISO timestamp, a date (2026-03-01), or a
// duration before now (7d, 12h, 30m). "" is the zero time.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := Parse(s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.Add(-time.Duration(d) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, errcode.New(errcode.InvalidInput, "cannot read time %q (use 2026-03-01, an ISO timestamp, or 7d / 12h)", s)
}
