// Package metrics owns the memory pipeline's measured figures (seed 000
// §12): one structured line in the event log per hook or command
// (capture, recall, search, compaction, lock waits), their sums over a
// window, and a machine's weekly sums as the small file each `hook finish`
// keeps under `.agentx/state/metrics/` (WRITER-YYYY-Www.json) for the state
// branch, where the Action's digest adds up every machine's.
package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/events"
)

// EventType is the event log type of a metrics line.
const EventType = "agentx-metrics"

// Dir is the weekly files' directory, relative to `.agentx/`.
const Dir = "state/metrics"

// Counters are sums: one hook's or command's (a Line), or a window's.
// Latencies are milliseconds summed over their runs (an average is the sum
// over the runs).
type Counters struct {
	// Lines counts the hooks and commands summed (1 in a Line).
	Lines int `json:"lines,omitempty"`
	// Capture: the captures run, their time, the failed ones and the
	// observations they stored.
	CaptureRuns   int   `json:"captureRuns,omitempty"`
	CaptureMS     int64 `json:"captureMs,omitempty"`
	CaptureErrors int   `json:"captureErrors,omitempty"`
	Captured      int   `json:"captured,omitempty"`
	// Recall (injection at `hook start`): runs, time, the runs that found
	// nothing, observations shown, their tokens and the tokens of manual
	// re-read they displaced (the recalled observations' source size).
	RecallRuns   int   `json:"recallRuns,omitempty"`
	RecallMS     int64 `json:"recallMs,omitempty"`
	RecallMisses int   `json:"recallMisses,omitempty"`
	Recalled     int   `json:"recalled,omitempty"`
	RecallTokens int   `json:"recallTokens,omitempty"`
	Displaced    int   `json:"displacedTokens,omitempty"`
	// Search (`memory search`): runs, time and results.
	Searches      int   `json:"searches,omitempty"`
	SearchMS      int64 `json:"searchMs,omitempty"`
	SearchResults int   `json:"searchResults,omitempty"`
	// Locks: time spent waiting for state file locks, and waits that gave up.
	LockWaitMS   int64 `json:"lockWaitMs,omitempty"`
	LockTimeouts int   `json:"lockTimeouts,omitempty"`
	// Compaction (retention's slice in `hook finish`, `memory compact`):
	// the issues changed and their observations before and after.
	Compactions   int `json:"compactions,omitempty"`
	CompactBefore int `json:"compactBefore,omitempty"`
	CompactAfter  int `json:"compactAfter,omitempty"`
}

// Add adds o to c.
func (c *Counters) Add(o Counters) {
	c.Lines += o.Lines
	c.CaptureRuns += o.CaptureRuns
	c.CaptureMS += o.CaptureMS
	c.CaptureErrors += o.CaptureErrors
	c.Captured += o.Captured
	c.RecallRuns += o.RecallRuns
	c.RecallMS += o.RecallMS
	c.RecallMisses += o.RecallMisses
	c.Recalled += o.Recalled
	c.RecallTokens += o.RecallTokens
	c.Displaced += o.Displaced
	c.Searches += o.Searches
	c.SearchMS += o.SearchMS
	c.SearchResults += o.SearchResults
	c.LockWaitMS += o.LockWaitMS
	c.LockTimeouts += o.LockTimeouts
	c.Compactions += o.Compactions
	c.CompactBefore += o.CompactBefore
	c.CompactAfter += o.CompactAfter
}

// Line is one hook's or command's metrics: the payload of one event.
type Line struct {
	Command string `json:"command"`
	Agent   string `json:"agent,omitempty"`
	Issue   int    `json:"issueNumber,omitempty"`
	Counters
}

// Sum adds up the metrics lines of evs whose time is in [since, until)
// (a zero bound is open); through is the time of the last one summed.
func Sum(evs []events.Event, since, until time.Time) (c Counters, through time.Time) {
	for _, e := range evs {
		if e.Type != EventType {
			continue
		}
		t, err := clock.Parse(e.Time)
		if err != nil || (!since.IsZero() && t.Before(since)) || (!until.IsZero() && !t.Before(until)) {
			continue
		}
		var l Line
		if json.Unmarshal(e.Payload, &l) != nil {
			continue
		}
		c.Add(l.Counters)
		if t.After(through) {
			through = t
		}
	}
	return c, through
}

// Week is one machine's sums for one ISO week: the file
// Dir/WRITER-YYYY-Www.json. Only that machine writes it; Through (the
// last line folded in) only grows, so of two versions the later is whole.
type Week struct {
	Writer  string `json:"writer"`
	Week    string `json:"week"`
	Through string `json:"through"`
	Counters
}

// ISOWeek names t's ISO week: "2026-W48".
func ISOWeek(t time.Time) string {
	y, w := t.UTC().ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

// WeekStart is the Monday 00:00 UTC that begins t's ISO week.
func WeekStart(t time.Time) time.Time {
	t = t.UTC()
	d := (int(t.Weekday()) + 6) % 7
	return time.Date(t.Year(), t.Month(), t.Day()-d, 0, 0, 0, 0, time.UTC)
}

// FileName is writer's file for week.
func FileName(writer, week string) string { return writer + "-" + week + ".json" }

// ParseFileName reads the writer and week back from a file name; ok is
// false for any other name.
func ParseFileName(name string) (writer, week string, ok bool) {
	stem, ok := strings.CutSuffix(name, ".json")
	if !ok || len(stem) < len("x-2026-W01") {
		return "", "", false
	}
	writer, week = stem[:len(stem)-len("-2026-W01")], stem[len(stem)-len("2026-W01"):]
	var y, w int
	if n, err := fmt.Sscanf(week, "%4d-W%2d", &y, &w); err != nil || n != 2 || w < 1 || w > 53 ||
		stem[len(writer)] != '-' || !hexID(writer) {
		return "", "", false
	}
	return writer, week, true
}

// hexID accepts a writer id: 16 to 64 lowercase hex digits.
func hexID(s string) bool {
	if len(s) < 16 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Fold adds to w the lines of evs after w.Through within w's week
// (starting at weekStart); changed reports whether any was added.
func (w *Week) Fold(evs []events.Event, weekStart time.Time) (changed bool) {
	since := weekStart
	if t, err := clock.Parse(w.Through); err == nil && !t.Before(since) {
		since = t.Add(time.Millisecond)
	}
	c, through := Sum(evs, since, weekStart.AddDate(0, 0, 7))
	if through.IsZero() {
		return false
	}
	w.Counters.Add(c)
	w.Through = clock.Format(through)
	return true
}

// Encode is the file's content.
func (w *Week) Encode() []byte {
	b, _ := json.MarshalIndent(w, "", "  ") // plain fields: cannot fail
	return append(b, '\n')
}

// ParseWeek reads a weekly file.
func ParseWeek(data []byte) (*Week, error) {
	var w Week
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("metrics file: %w", err)
	}
	if w.Week == "" || w.Through == "" {
		return nil, fmt.Errorf("metrics file: no week or through")
	}
	return &w, nil
}

// Later is the version of one machine's weekly file to keep of two: the
// one folded further (Through, then Lines; bytes break a tie, so the
// choice is symmetric). A side that does not parse loses.
func Later(a, b []byte) []byte {
	wa, ea := ParseWeek(a)
	wb, eb := ParseWeek(b)
	switch {
	case ea != nil:
		return b
	case eb != nil:
		return a
	}
	ta, _ := clock.Parse(wa.Through)
	tb, _ := clock.Parse(wb.Through)
	switch {
	case ta.After(tb):
		return a
	case tb.After(ta):
		return b
	case wa.Lines != wb.Lines:
		if wa.Lines > wb.Lines {
			return a
		}
		return b
	case bytes.Compare(a, b) >= 0:
		return a
	}
	return b
}
