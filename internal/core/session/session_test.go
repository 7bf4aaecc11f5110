package session

import (
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestReadWithinOpenPipe pins the stdin budget: a pipe whose writer never
// closes it (`(sleep 8) | agentx-hook hook start`) must not hold a hook
// until EOF, and a payload written to such a pipe is still read whole.
func TestReadWithinOpenPipe(t *testing.T) {
	t.Run("nothing arrives", func(t *testing.T) {
		r, w := io.Pipe()
		defer func() { _ = w.Close() }()
		start := time.Now()
		if data := ReadWithin(r, 1<<20, StdinFirst, StdinRest); len(data) != 0 {
			t.Errorf("read %q from a silent pipe", data)
		}
		// The budget is 200 ms; 10 s leaves room for a loaded machine
		// while still failing the old wait-for-EOF behaviour.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %s on a pipe that never closes", d)
		}
	})
	t.Run("payload then held open", func(t *testing.T) {
		r, w := io.Pipe()
		defer func() { _ = w.Close() }()
		payload := `{"session_id":"s1","agent_type":"reviewer"}`
		go func() { _, _ = w.Write([]byte(payload)) }()
		start := time.Now()
		data := ReadWithin(r, 1<<20, 5*time.Second, 5*time.Second)
		if string(data) != payload {
			t.Errorf("read %q, want the payload", data)
		}
		// A whole JSON document ends the read: no wait for either budget.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %s after a whole payload", d)
		}
	})
	t.Run("text summary held open", func(t *testing.T) {
		r, w := io.Pipe()
		defer func() { _ = w.Close() }()
		go func() { _, _ = w.Write([]byte("## Decisions\n- x\n")) }()
		data := ReadWithin(r, 1<<20, 5*time.Second, 50*time.Millisecond)
		if string(data) != "## Decisions\n- x\n" {
			t.Errorf("read %q", data)
		}
	})
}

func TestFitHostCutsOnARuneBoundary(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 6000) // 12,000 bytes
	got := FitHost(long, "claude")
	if len(got) > 10000 || !utf8.ValidString(got) || !strings.Contains(got, "cut to the host's limit") {
		t.Fatalf("len %d valid %v", len(got), utf8.ValidString(got))
	}
	if FitHost("short", "claude") != "short" {
		t.Fatal("short text changed")
	}
	if n := len(FitHost(strings.Repeat("x", 20000), "codex")); n > 2500*4 {
		t.Fatalf("codex cut to %d", n)
	}
}

// A payload whose first byte comes after the old 200 ms cut-off is read
// whole when the hook waits up to its deadline; one that never comes
// marks the input Missing, which is not a session end (issue 31).
func TestReadPayloadLate(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	defer func() { _ = w.Close() }()
	payload := `{"session_id":"s1","hook_event_name":"SessionEnd","transcript_path":"/t.jsonl"}`
	go func() {
		time.Sleep(2 * StdinFirst) // later than the old cut-off
		_, _ = w.Write([]byte(payload))
	}()
	in, _ := ReadPayload(r, PayloadWait(30*time.Second))
	if !in.IsPayload() || in.Missing || in.MidSession() {
		t.Fatalf("late payload: %+v", in)
	}

	silent, hold := io.Pipe()
	defer func() { _ = hold.Close() }()
	in, _ = ReadPayload(silent, StdinFirst)
	if !in.Missing || !in.MidSession() || !in.Empty() {
		t.Fatalf("no payload: %+v (missing %v, mid %v)", in, in.Missing, in.MidSession())
	}
	// EOF with nothing (a hook run by hand, </dev/null) is no missing payload.
	in, _ = ReadPayload(strings.NewReader(""), StdinFirst)
	if in.Missing || in.MidSession() {
		t.Fatalf("empty stdin: %+v", in)
	}
}

func TestPayloadWait(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ deadline, want time.Duration }{
		{10 * time.Second, 9 * time.Second},
		{2 * time.Second, 1600 * time.Millisecond},
		{time.Nanosecond, StdinFirst},
	} {
		if got := PayloadWait(tt.deadline); got != tt.want {
			t.Errorf("PayloadWait(%s) = %s, want %s", tt.deadline, got, tt.want)
		}
	}
}
