// Package events owns the event log `.agentx/state/events.jsonl`: one JSON
// object a line, `{"type":..., "payload":{...}}`, with the reference
// payloads, bounded to the last 1,000 events.
package events

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/jsonfile"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

// Event types.
const (
	ClarificationRequested = "clarification-requested"
	ClarificationAnswered  = "clarification-answered"
	ClarificationStale     = "clarification-stale"
	ClarificationResolved  = "clarification-resolved"
	ClarificationEscalated = "clarification-escalated"
	// The reference logs no event for these two; without them the log
	// hid a follow-up round and a dropped question.
	ClarificationFollowup  = "clarification-followup"
	ClarificationAbandoned = "clarification-abandoned"
	MemoryStored           = "memory-stored"
	MemoryRecalled         = "memory-recalled"
)

// ClarificationWaitAbandoned: a blocking request's wait for its answer
// (the MCP server's clarify_request) ended because its client went away
// or cancelled the call; the request itself stays open.
const ClarificationWaitAbandoned = "clarification-wait-abandoned"

// MaxEvents is how many events the log keeps.
const MaxEvents = 1000

// Event is one line of the log.
type Event struct {
	Type    string          `json:"type"`
	Time    string          `json:"time"`
	Payload json.RawMessage `json:"payload"`
}

// ClarificationPayload is the reference payload of clarification events.
type ClarificationPayload struct {
	ClarificationID string `json:"clarificationId"`
	IssueNumber     int    `json:"issueNumber"`
	FromAgent       string `json:"fromAgent"`
	ToAgent         string `json:"toAgent"`
	Topic           string `json:"topic"`
	Blocking        bool   `json:"blocking"`
	// Round is set on a follow-up only (the round it opened).
	Round     int   `json:"round,omitempty"`
	Timestamp int64 `json:"timestamp"`
}

// WaitAbandonedPayload is a clarification-wait-abandoned event's payload:
// the record, why the wait ended and how long it had lasted.
type WaitAbandonedPayload struct {
	ClarificationPayload
	Reason        string `json:"reason"`
	WaitedSeconds int    `json:"waitedSeconds"`
}

// MemoryPayload is the reference payload of memory events.
type MemoryPayload struct {
	Agent          string   `json:"agent"`
	IssueNumber    int      `json:"issueNumber"`
	Count          int      `json:"count"`
	TotalTokens    int      `json:"totalTokens"`
	ObservationIDs []string `json:"observationIds"`
	Timestamp      int64    `json:"timestamp"`
}

// Log appends to and reads the event log.
type Log struct {
	Path  string
	Locks *lock.Locker
	Clock clock.Clock
}

// Append adds events. The log is trimmed to its last MaxEvents lines when
// it grows past 1.5x that, so an append is usually one O_APPEND write and
// the trim (a locked rewrite) is paid once every 500 events.
func (l *Log) Append(ctx context.Context, typ string, payload any) error {
	line, err := encodeLine(typ, clock.Format(l.Clock.Now()), payload)
	if err != nil {
		return err
	}
	return l.appendLine(ctx, line)
}

// encodeLine is an event's line as json.Marshal writes the Event. The
// clarification payloads every clarify command logs are written by hand
// (TestEncodeLineIsMarshal), without the reflection json.Marshal pays on
// a type's first use; any other goes through json.Marshal.
func encodeLine(typ, now string, payload any) ([]byte, error) {
	p, ok := payload.(ClarificationPayload)
	if !ok {
		raw, err := json.Marshal(payload)
		if err != nil {
			return nil, err
		}
		line, err := json.Marshal(Event{Type: typ, Time: now, Payload: raw})
		if err != nil {
			return nil, err
		}
		return append(line, '\n'), nil
	}
	str := jsonfile.AppendMarshalString
	b := make([]byte, 0, 192+len(typ)+len(p.ClarificationID)+len(p.FromAgent)+len(p.ToAgent)+len(p.Topic))
	b = append(b, `{"type":`...)
	b = str(b, typ)
	b = append(b, `,"time":`...)
	b = str(b, now)
	b = append(b, `,"payload":{"clarificationId":`...)
	b = str(b, p.ClarificationID)
	b = append(b, `,"issueNumber":`...)
	b = strconv.AppendInt(b, int64(p.IssueNumber), 10)
	b = append(b, `,"fromAgent":`...)
	b = str(b, p.FromAgent)
	b = append(b, `,"toAgent":`...)
	b = str(b, p.ToAgent)
	b = append(b, `,"topic":`...)
	b = str(b, p.Topic)
	b = append(b, `,"blocking":`...)
	b = strconv.AppendBool(b, p.Blocking)
	if p.Round != 0 {
		b = append(b, `,"round":`...)
		b = strconv.AppendInt(b, int64(p.Round), 10)
	}
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, p.Timestamp, 10)
	return append(b, "}}\n"...), nil
}

// write appends line to the open log f (its last line terminated first)
// and reports whether the log may now be over its bound. Counting lines
// means reading the whole log, so it is done only when the size says the
// log might be over its bound, and then only on the append that crosses
// an 8 KiB boundary (one in about 40), or at once when even long lines
// could not explain the size.
func write(f *os.File, line []byte) (trim bool, err error) {
	if _, err := f.Write(atomicfile.Terminated(f, line)); err != nil {
		return false, fmt.Errorf("append event log: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		return false, nil // the event is in; the trim waits for the next append
	}
	size := info.Size()
	crossed := (size-int64(len(line)))/8192 != size/8192
	return size > int64(MaxEvents)*150 && (crossed || size > int64(MaxEvents)*600), nil
}

// openLog opens the log for appending, creating it and its directory.
func (l *Log) openLog() (*os.File, error) {
	f, err := atomicfile.OpenAppend(l.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dirOf(l.Path), 0o755); err != nil {
			return nil, err
		}
		f, err = atomicfile.OpenAppend(l.Path)
	}
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	return f, nil
}

func (l *Log) trim(lk *lock.Lock) error {
	data, err := atomicfile.ReadState(l.Path)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= MaxEvents*3/2 {
		return nil
	}
	kept := bytes.Join(lines[len(lines)-MaxEvents:], nil)
	return atomicfile.Write(l.Path, kept, atomicfile.Options{Commit: lk.Commit})
}

// Read returns the events at or after since (zero: all), oldest first,
// at most the last MaxEvents. Lines that do not parse are skipped and
// counted: a torn last line from a crash must not hide the rest.
func (l *Log) Read(since time.Time) (evs []Event, skipped int, err error) {
	evs, sk, err := l.ReadSkipped(since)
	return evs, sk.Count, err
}

// MaxSkippedLines is how many skipped lines Skipped names by number; the
// others are counted.
const MaxSkippedLines = 5

// Skipped is what Read left out: how many lines, and the first
// MaxSkippedLines of them by number (1-based), so they can be found.
type Skipped struct {
	Count int
	Lines []int
}

func (s *Skipped) add(line int) {
	s.Count++
	if len(s.Lines) < MaxSkippedLines {
		s.Lines = append(s.Lines, line)
	}
}

// String names the lines: "line 4", "lines 2, 3 and 9", "lines 2, 3, 4,
// 5, 6 and 3 more".
func (s Skipped) String() string {
	if s.Count == 0 {
		return "no line"
	}
	nums := make([]string, len(s.Lines))
	for i, n := range s.Lines {
		nums[i] = strconv.Itoa(n)
	}
	if len(nums) == 1 && s.Count == 1 {
		return "line " + nums[0]
	}
	if more := s.Count - len(nums); more > 0 {
		return "lines " + strings.Join(nums, ", ") + " and " + strconv.Itoa(more) + " more"
	}
	return "lines " + strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
}

// ReadSkipped is Read, naming the lines it skipped.
func (l *Log) ReadSkipped(since time.Time) (evs []Event, skipped Skipped, err error) {
	f, err := atomicfile.OpenRegular(l.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, skipped, nil
		}
		return nil, skipped, err
	}
	defer func() { _ = f.Close() }() // read-only: a close error loses nothing
	r := bufio.NewReaderSize(f, 64*1024)
	for n := 1; ; n++ {
		line, rerr := readLine(r)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, Skipped{}, fmt.Errorf("read event log %s: %w", l.Path, rerr)
		}
		if line == nil && rerr != nil {
			break
		}
		if line == nil {
			skipped.add(n) // longer than any event: junk
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil || e.Type == "" {
			skipped.add(n)
			continue
		}
		if !since.IsZero() {
			t, err := clock.Parse(e.Time)
			if err == nil && t.Before(since) {
				continue
			}
		}
		evs = append(evs, e)
	}
	if len(evs) > MaxEvents {
		evs = evs[len(evs)-MaxEvents:]
	}
	return evs, skipped, nil
}

// maxLine bounds an event line; a longer one is junk and is skipped.
const maxLine = 4 << 20

// readLine returns the next line without its newline, nil for a line
// longer than maxLine (consumed and dropped), and io.EOF after the last.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if line != nil || len(chunk) > 0 {
			if len(line) <= maxLine {
				line = append(line, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return nil, err
		}
		if line == nil {
			return nil, err // io.EOF
		}
		if len(line) > maxLine {
			return nil, nil
		}
		return bytes.TrimSuffix(line, []byte("\n")), nil
	}
}

func dirOf(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if os.IsPathSeparator(p[i]) {
			return p[:i]
		}
	}
	return "."
}

// Line is the event as `events` lists it: time, type, payload.
func (e Event) Line() string {
	return fmt.Sprintf("%s  %-24s %s", e.Time, e.Type, string(e.Payload))
}
