package metrics

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/events"
)

func line(t *testing.T, at string, c Counters) events.Event {
	t.Helper()
	raw, err := json.Marshal(Line{Command: "hook finish", Counters: c})
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{Type: EventType, Time: at, Payload: raw}
}

func TestFoldAddsOnlyNewLinesOfTheWeek(t *testing.T) {
	t.Parallel()
	start := WeekStart(time.Date(2026, 11, 19, 15, 0, 0, 0, time.UTC))
	if start != time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC) || ISOWeek(start) != "2026-W47" {
		t.Fatalf("week start %v %s", start, ISOWeek(start))
	}
	evs := []events.Event{
		line(t, "2026-11-15T23:59:59.999Z", Counters{Lines: 1, CaptureRuns: 9}), // the week before
		line(t, "2026-11-16T08:00:00.000Z", Counters{Lines: 1, CaptureRuns: 1, Captured: 2}),
		{Type: events.MemoryStored, Time: "2026-11-16T09:00:00.000Z", Payload: json.RawMessage(`{}`)},
		line(t, "2026-11-17T08:00:00.000Z", Counters{Lines: 1, RecallRuns: 1, RecallMisses: 1}),
	}
	w := &Week{Writer: "0123456789abcdef", Week: "2026-W47"}
	if !w.Fold(evs, start) || w.Lines != 2 || w.CaptureRuns != 1 || w.RecallRuns != 1 || w.Through != "2026-11-17T08:00:00.000Z" {
		t.Fatalf("first fold: %+v", w)
	}
	if w.Fold(evs, start) {
		t.Fatalf("a second fold of the same lines changed the file: %+v", w)
	}
	evs = append(evs, line(t, "2026-11-18T08:00:00.000Z", Counters{Lines: 1, Searches: 2}))
	if !w.Fold(evs, start) || w.Lines != 3 || w.Searches != 2 {
		t.Fatalf("second fold: %+v", w)
	}
	back, err := ParseWeek(w.Encode())
	if err != nil || *back != *w {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	r := NewReport(back.Counters, start, start.AddDate(0, 0, 7))
	if r.RecallHitRate == nil || *r.RecallHitRate != 0 {
		t.Errorf("hit rate %v", r.RecallHitRate)
	}
}

func TestFileNames(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"0123456789abcdef-2026-W47.json": true, "0123456789ABCDEF-2026-W47.json": false,
		"0123456789abcdef-2026-W54.json": false, "0123456789abcdef-2026-47.json": false, "x-2026-W47.json": false,
		"0123456789abcdef-2026-W47.json.lock": false,
	} {
		w, week, got := ParseFileName(name)
		if got != ok || ok && (w != "0123456789abcdef" || week != "2026-W47") {
			t.Errorf("%s: %q %q %v", name, w, week, got)
		}
	}
}
