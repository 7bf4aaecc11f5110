package session

import (
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/agentx-dev/agentx/internal/core/capture"
)

// A hook reads its payload within a short budget, so a stdin that stays
// open (a pipe whose writer never closes it) never hangs the host: it
// waits StdinFirst for a first byte, then at most StdinRest for the rest,
// and stops early at EOF or once the bytes read form one whole JSON
// document (a host payload).
const (
	StdinFirst = 200 * time.Millisecond
	StdinRest  = 500 * time.Millisecond
	// stdinLimit bounds a payload: hosts send a path to the transcript,
	// never the transcript itself.
	stdinLimit = 1 << 20
)

// ReadPayload reads an optional host payload (or session summary) from r
// within the stdin budget. agent is the agent the payload names (Claude
// Code's agent_type), if any. A terminal is never read.
func ReadPayload(r io.Reader) (in capture.Input, agent string) {
	if r == nil {
		return in, ""
	}
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return in, ""
		}
	}
	data := ReadWithin(r, stdinLimit, StdinFirst, StdinRest)
	if len(data) == 0 {
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
	var data []byte
	timer := time.NewTimer(first)
	defer timer.Stop()
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				return data
			}
			if len(data) == 0 {
				timer.Reset(rest)
			}
			data = append(data, c...)
			if len(data) >= limit {
				return data[:limit]
			}
			if capture.LooksLikePayload(data) && json.Valid(data) {
				return data
			}
		case <-timer.C:
			return data
		}
	}
}
