package events

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

func TestLogKeepsItsLastThousand(t *testing.T) {
	t.Parallel()
	fc := clock.NewFake(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	l := &Log{Path: filepath.Join(t.TempDir(), "state", "events.jsonl"), Locks: lock.New(lock.Options{}), Clock: fc}
	for i := 0; i < 1600; i++ {
		fc.Advance(time.Second)
		if err := l.Append(context.Background(), ClarificationRequested, ClarificationPayload{ClarificationID: "CLR-1-001", IssueNumber: i}); err != nil {
			t.Fatal(err)
		}
	}
	evs, skipped, err := l.Read(time.Time{})
	if err != nil || skipped != 0 {
		t.Fatal(err, skipped)
	}
	if len(evs) != MaxEvents {
		t.Fatalf("%d events, want %d", len(evs), MaxEvents)
	}
	data, _ := os.ReadFile(l.Path)
	if lines := countLines(data); lines > MaxEvents*3/2 {
		t.Fatalf("file holds %d lines, bound is %d", lines, MaxEvents*3/2)
	}
	recent, _, _ := l.Read(fc.Now().Add(-10 * time.Second))
	if len(recent) != 11 {
		t.Fatalf("--since 10s gave %d events", len(recent))
	}
}

func TestTornLineIsSkipped(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	content := `{"type":"clarification-requested","time":"2026-03-01T00:00:00.000Z","payload":{}}` + "\n" + `{"type":"clarif`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Log{Path: path, Locks: lock.New(lock.Options{}), Clock: clock.Real{}}
	evs, skipped, err := l.Read(time.Time{})
	if err != nil || len(evs) != 1 || skipped != 1 {
		t.Fatalf("evs=%d skipped=%d err=%v", len(evs), skipped, err)
	}
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

// A crash or a full disk can cut an append short, leaving a last line with
// no newline. The next append must start a line of its own: glued to the
// torn one, the new event would be unreadable too.
func TestAppendAfterTornLineIsReadable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	content := `{"type":"clarification-requested","time":"2026-03-01T00:00:00.000Z","payload":{}}` + "\n" + `{"type":"clarif`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	fc := clock.NewFake(time.Date(2026, 3, 1, 0, 0, 1, 0, time.UTC))
	l := &Log{Path: path, Locks: lock.New(lock.Options{}), Clock: fc}
	if err := l.Append(context.Background(), MemoryStored, MemoryPayload{Agent: "engineer", IssueNumber: 7}); err != nil {
		t.Fatal(err)
	}
	evs, skipped, err := l.Read(time.Time{})
	if err != nil || len(evs) != 2 || skipped != 1 {
		t.Fatalf("evs=%d skipped=%d err=%v", len(evs), skipped, err)
	}
	if evs[1].Type != MemoryStored {
		t.Fatalf("last event is %q", evs[1].Type)
	}
}

// A line past the reader's buffer (junk from a crash, a runaway writer of
// another tool) is skipped like any line that does not parse: it must not
// hide the events after it.
func TestOverlongLineIsSkipped(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	good := `{"type":"clarification-requested","time":"2026-03-01T00:00:00.000Z","payload":{}}` + "\n"
	content := good + strings.Repeat("x", 5<<20) + "\n" + good
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Log{Path: path, Locks: lock.New(lock.Options{}), Clock: clock.Real{}}
	evs, skipped, err := l.Read(time.Time{})
	if err != nil || len(evs) != 2 || skipped != 1 {
		t.Fatalf("evs=%d skipped=%d err=%v", len(evs), skipped, err)
	}
}
