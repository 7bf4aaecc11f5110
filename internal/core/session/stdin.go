package session

import (
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
)

// A hook reads its payload within a budget, so a stdin that stays open (a
// pipe whose writer never closes it) never hangs the host: it waits for a
// first byte up to PayloadWait of its deadline (at least StdinFirst),
// then at most StdinRest for the rest, and stops early at EOF or once the
// bytes read form one whole JSON document (a host payload). A loaded
// machine or a slow host sends a payload late; one ignored after 200 ms
// lost the session's capture and marked the agent done (issue 31).
const (
	StdinFirst = 200 * time.Millisecond
	StdinRest  = 500 * time.Millisecond
	// stdinLimit bounds a payload: hosts send a path to the transcript,
	// never the transcript itself.
	stdinLimit = 1 << 20
)

// PayloadWait is how long a hook with the given deadline waits for its
// payload's first byte: the deadline less a reserve (a fifth, at most a
// second) for the spool write that makes the capture durable.
func PayloadWait(deadline time.Duration) time.Duration {
	return max(StdinFirst, deadline-min(deadline/5, time.Second))
}

// ReadPayload reads an optional host payload (or session summary) from r,
// waiting up to first for its first byte. agent is the agent the payload
// names (Claude Code's agent_type), if any. A terminal is never read. A
// stdin still open after first with nothing on it sets in.Missing.
func ReadPayload(r io.Reader, first time.Duration) (in capture.Input, agent string) {
	if r == nil {
		return in, ""
	}
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return in, ""
		}
	}
	data, timedOut := readWithin(r, stdinLimit, first, StdinRest)
	if len(data) == 0 {
		in.Missing = timedOut
		return in, ""
	}
	in = capture.ParseInput(data)
	var named struct {
		AgentType string `json:"agent_type"`
	}
	if capture.LooksLikePayload(data) && json.Unmarshal(data, &named) == nil {
		agent = named.AgentType
	}
	return in, agent
}

// ReadWithin reads r until EOF, limit bytes, or one whole JSON document,
// giving up first after nothing arrived and rest after the first byte.
// The reading goroutine is left behind on a stdin that never closes; the
// process ends soon after a hook anyway.
func ReadWithin(r io.Reader, limit int, first, rest time.Duration) []byte {
	data, _ := readWithin(r, limit, first, rest)
	return data
}

// readWithin is ReadWithin, reporting whether a budget ran out (rather
// than EOF, the limit or a whole document ending the read).
func readWithin(r io.Reader, limit int, first, rest time.Duration) (data []byte, timedOut bool) {
	chunks := make(chan []byte, 16)
	go func() {
		defer close(chunks)
		buf := make([]byte, 32<<10)
		total := 0
		for total < limit {
			n, err := r.Read(buf)
			if n > 0 {
				chunks <- append([]byte(nil), buf[:n]...)
				total += n
			}
			if err != nil {
				return
			}
		}
	}()
	timer := time.NewTimer(first)
	defer timer.Stop()
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				return data, false
			}
			if len(data) == 0 {
				timer.Reset(rest)
			}
			data = append(data, c...)
			if len(data) >= limit {
				return data[:limit], false
			}
			if capture.LooksLikePayload(data) && json.Valid(data) {
				return data, false
			}
		case <-timer.C:
			return data, true
		}
	}
}
