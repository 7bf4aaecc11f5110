package metrics

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/events"
)

// Report is a window's sums with the averages and rates they give (null
// when nothing ran to give them).
type Report struct {
	Since string `json:"since"`
	Until string `json:"until"`
	Counters
	CaptureAvgMS  *float64 `json:"captureAvgMs"`
	RecallAvgMS   *float64 `json:"recallAvgMs"`
	SearchAvgMS   *float64 `json:"searchAvgMs"`
	RecallHitRate *float64 `json:"recallHitRate"`
	// Writers is how many machines' weekly files were summed (the Action's
	// digest; 0 for one machine's event log).
	Writers int `json:"writers,omitempty"`
}

// NewReport is c over [since, until).
func NewReport(c Counters, since, until time.Time) Report {
	return Report{Since: clock.Format(since), Until: clock.Format(until), Counters: c,
		CaptureAvgMS: ratio(float64(c.CaptureMS), c.CaptureRuns), RecallAvgMS: ratio(float64(c.RecallMS), c.RecallRuns),
		SearchAvgMS:   ratio(float64(c.SearchMS), c.Searches),
		RecallHitRate: ratio(float64(c.RecallRuns-c.RecallMisses), c.RecallRuns)}
}

func ratio(n float64, d int) *float64 {
	if d <= 0 {
		return nil
	}
	v := math.Round(n/float64(d)*100) / 100
	return &v
}

// Text is the report as lines of plain text.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Captures: %d (%d observations, %d errors, average %s)\n", r.CaptureRuns, r.Captured, r.CaptureErrors, ms(r.CaptureAvgMS))
	fmt.Fprintf(&b, "Recalls: %d (%d observations, %d memory tokens, hit rate %s, average %s)\n", r.RecallRuns, r.Recalled, r.RecallTokens, Pct(r.RecallHitRate), ms(r.RecallAvgMS))
	fmt.Fprintf(&b, "Token displacement: about %d tokens of manual re-read\n", r.Displaced)
	fmt.Fprintf(&b, "Searches: %d (%d results, average %s)\n", r.Searches, r.SearchResults, ms(r.SearchAvgMS))
	fmt.Fprintf(&b, "Lock wait: %d ms in all, %d timeouts\n", r.LockWaitMS, r.LockTimeouts)
	fmt.Fprintf(&b, "Compactions: %d (%d observations before, %d after)\n", r.Compactions, r.CompactBefore, r.CompactAfter)
	return b.String()
}

func ms(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.0f ms", *v)
}

// Pct is a rate as a percentage, "n/a" when null.
func Pct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", *v*100)
}

// Recent is the report of the days before now in log: what `memory stats`
// shows. A log that cannot be read is reported with what was read of it.
func Recent(log *events.Log, now time.Time, days int) (Report, error) {
	since := now.Add(-time.Duration(days) * 24 * time.Hour)
	evs, _, err := log.Read(since)
	c, _ := Sum(evs, since, time.Time{})
	return NewReport(c, since, now), err
}

// Section is the report under a heading naming its window ("Metrics, last
// 7 days:"), every line indented two spaces.
func (r Report) Section(days int) string {
	body := "  " + strings.ReplaceAll(strings.TrimSuffix(r.Text(), "\n"), "\n", "\n  ") + "\n"
	return fmt.Sprintf("Metrics, last %d days:\n%s", days, body)
}
