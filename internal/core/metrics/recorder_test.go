package metrics

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/events"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// Every Record appends one line; only a session's end with a writer id
// writes the weekly file.
func TestRecorder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		writer     string
		weekly     bool
		wantWeekly bool
	}{
		{"command", "0123456789abcdef", false, false},
		{"session end, no writer yet", "", true, false},
		{"session end", "0123456789abcdef", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			fc := clock.NewFake(time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC))
			locks := lock.New(lock.Options{})
			log := &events.Log{Path: filepath.Join(dir, "state", "events.jsonl"), Locks: locks, Clock: fc}
			var warnings []string
			r := &Recorder{Log: log, Locks: locks, Dir: filepath.Join(dir, "metrics"), Now: fc.Now,
				Writer: func() string { return tt.writer },
				Warn:   func(f string, _ ...any) { warnings = append(warnings, f) }}
			r.Record(context.Background(), Line{Command: "hook finish"}, tt.weekly)
			evs, _, err := log.Read(time.Time{})
			if err != nil || len(evs) != 1 || evs[0].Type != EventType {
				t.Fatalf("events %+v, %v; want one %s line", evs, err, EventType)
			}
			files, _ := os.ReadDir(r.Dir)
			if (len(files) > 0) != tt.wantWeekly {
				t.Errorf("weekly files %v, want some: %v", files, tt.wantWeekly)
			}
			if len(warnings) > 0 {
				t.Errorf("warnings %q", warnings)
			}
		})
	}
}
