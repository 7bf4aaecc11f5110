package capture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/spool"
)

// FromPayload captures what a hook payload points at: its transcript (from
// opt.Offset), plus the compaction summary a PostCompact payload carries,
// plus Codex's last assistant message when there is no transcript to read.
// opt.Cwd defaults to the payload's cwd. A transcript that cannot be read
// is an error: the caller keeps the payload spooled and retries.
func FromPayload(p Payload, opt Options) (Result, error) {
	return FromPayloadContext(context.Background(), p, opt)
}

// FromPayloadContext is FromPayload, stopping with ctx's error once ctx is
// done (a hook's deadline).
func FromPayloadContext(ctx context.Context, p Payload, opt Options) (Result, error) {
	if opt.Cwd == "" {
		opt.Cwd = p.Cwd
	}
	var res Result
	if p.TranscriptPath != "" {
		r, err := ExtractFileContext(ctx, p.TranscriptPath, opt)
		if err != nil {
			return Result{}, err
		}
		res = r
	} else if p.LastAssistantMessage != "" {
		res.Candidates = proseCandidates(p.LastAssistantMessage, len(p.LastAssistantMessage))
		res.SourceBytes = int64(len(p.LastAssistantMessage))
	}
	if p.CompactSummary != "" {
		// The host's own summary of what was compacted away: the one thing
		// compaction would otherwise lose for good. It leads the capture.
		sum := Candidate{Category: memory.CompactionSummary, Content: p.CompactSummary, SourceBytes: int(res.SourceBytes)}
		res.Candidates = append([]Candidate{sum}, res.Candidates...)
	}
	cands, err := finish(ctx, res.Candidates, false)
	if err != nil {
		return Result{}, err
	}
	res.Candidates = cands
	return res, nil
}

// tailBytes is how much of a transcript's end TurnKey reads for its last
// line.
const tailBytes = 64 << 10

// TurnKey is the spool key of the turn a payload describes: its session id
// and its transcript's size and last line, so the same turn reported twice
// (Stop, then SessionEnd) has one key and a later turn a new one. A payload
// without a readable transcript is keyed by its own fields.
//
// A Copilot sessionEnd has a key of its own: its payload names no
// transcript, and its capture waits for the next hook start (Copilot
// writes the last turns after the hook returns), so it must not pass for
// the agentStop of the same session already done.
func TurnKey(p Payload) string {
	size, last := transcriptTail(p.TranscriptPath)
	parts := []string{string(p.Host), p.SessionID, p.TurnID, strconv.FormatInt(size, 10), string(last),
		strconv.Itoa(len(p.CompactSummary))}
	if p.Host == Copilot && p.SessionEnd() {
		parts = append(parts, "session-end")
	}
	return spool.Key(parts...)
}

func transcriptTail(path string) (int64, []byte) {
	if path == "" {
		return -1, nil
	}
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return -1, nil
	}
	defer func() { _ = f.Close() }() // opened read-only: a close error loses nothing
	info, err := f.Stat()
	if err != nil {
		return -1, nil
	}
	size := info.Size()
	start := max(size-tailBytes, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return size, nil
	}
	buf = bytes.TrimRight(buf, "\r\n")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	}
	return size, buf
}

// String renders a candidate for logs and tests.
func (c Candidate) String() string {
	return fmt.Sprintf("%s: %s", c.Category, c.Content)
}

// FromInput captures from what a hook or `memory capture` read on stdin: a
// host hook payload (a JSON object) or a session summary in the old format
// (any other text). The payload is returned for keying and cursors; it is
// zero for a summary.
func FromInput(data []byte, opt Options) (Result, Payload, error) {
	if !LooksLikePayload(data) {
		return ParseSummary(string(data)), Payload{}, nil
	}
	p, err := ParsePayload(data)
	if err != nil {
		return Result{}, Payload{}, err
	}
	res, err := FromPayload(p, opt)
	return res, p, err
}

// BytesPerToken is the reference token estimate (ceil(length/4)), used to
// turn source bytes into the tokens recall displaced.
const BytesPerToken = 4

// SourceTokens estimates the tokens an agent would spend re-reading n bytes
// of session material: "Memory recall displaced N tokens of manual re-read".
func SourceTokens(n int) int { return (n + BytesPerToken - 1) / BytesPerToken }
