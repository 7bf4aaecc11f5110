package digest

import (
	"fmt"
	"time"
)

// WeekOf names a window by the ISO 8601 week of its midpoint ("2026-W47"):
// a digest run on Monday morning over the last seven days reports the week
// that just ended, and a re-run later that Monday names the same week.
func WeekOf(w Window) string {
	mid := w.Since.Add(w.Until.Sub(w.Since) / 2).UTC()
	y, n := mid.ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, n)
}

// FileName is the old tool's digest file name for a window:
// DIGEST-<ISO year>-W<ISO week>.md.
func FileName(w Window) string { return "DIGEST-" + WeekOf(w) + ".md" }

// Title is the title of the week's digest issue in GitHub Mode.
func Title(w Window) string { return "AgentX digest " + WeekOf(w) }

// LastDays is the window of the days before now.
func LastDays(now time.Time, days int) Window {
	now = now.UTC()
	return Window{Since: now.AddDate(0, 0, -days), Until: now}
}
