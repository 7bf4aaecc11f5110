// Package capture owns turning what a session leaves behind into candidate
// observations, without any LLM: the old compaction-summary format, host
// hook payloads (Claude Code, Copilot CLI, Codex) and the transcripts they
// point at. Everything here is a pure function of its input (reading the
// transcript file is the only effect), so `hook finish`, `hook start` (for
// spooled payloads) and `memory capture` share it and tests need no store.
//
// Every candidate leaves this package already sanitised (package sanitize:
// private regions, secrets, 2,000 characters), cut to the reference summary,
// de-duplicated and capped at MaxPerCapture: nothing unsanitised can reach
// the store through it.
package capture

import (
	"context"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// The original specification's limits (its section 3.4), kept by the old tools.
const (
	// MaxPerCapture is the most observations one capture yields.
	MaxPerCapture = 50
	// MinItemChars drops items shorter than this (after trimming).
	MinItemChars = 10
)

// Candidate is an observation before it is stored: the store adds the id,
// agent, issue, timestamp, session id and token estimate.
type Candidate struct {
	Category memory.Category
	// Content is sanitised and at most sanitize.MaxChars characters.
	Content string
	// Summary is memory.Summarize(Content).
	Summary string
	// Files are the paths the observation is about (code-change, error),
	// relative to the session's working directory when inside it.
	Files []string
	// SourceBytes is how many bytes of the session's input this candidate
	// stands for: what an agent would have to re-read to learn it again.
	// Recall sums it to report the tokens memory displaced.
	SourceBytes int
}

// Result is what one capture produced.
type Result struct {
	Candidates []Candidate
	// SourceBytes is the size of the input segment read (transcript bytes
	// from Offset to EndOffset, or the summary's length).
	SourceBytes int64
	// EndOffset is where the next capture of the same transcript should
	// start (Options.Offset), so a Stop hook firing every turn does not
	// capture the same turns again.
	EndOffset int64
	// Lines is the number of transcript lines read; Skipped counts the ones
	// that were not JSON (a line being written, junk).
	Lines, Skipped int
	// Truncated reports that the segment was larger than Options.MaxBytes
	// and only its end was read.
	Truncated bool
}

// TotalSourceBytes sums the candidates' SourceBytes.
func (r Result) TotalSourceBytes() int {
	n := 0
	for _, c := range r.Candidates {
		n += c.SourceBytes
	}
	return n
}

// priority orders categories when a capture holds more than MaxPerCapture
// candidates: what an agent cannot re-derive from the code comes first.
func priority(c memory.Category) int {
	switch c {
	case memory.CompactionSummary:
		return 0
	case memory.Decision:
		return 1
	case memory.Error:
		return 2
	case memory.KeyFact:
		return 3
	default:
		return 4
	}
}

// keptBeforeSanitising is how many distinct candidates the first pass keeps:
// MaxPerCapture and room for those the sanitiser empties or shortens
// below MinItemChars.
const keptBeforeSanitising = 4 * MaxPerCapture

// finish sanitises, summarises, drops short and empty items and
// near-duplicates, and caps the list. keepOrder keeps the input order (the
// summary format, where the old pipeline's order is the contract);
// otherwise candidates are ordered by category priority, stably.
//
// A long session yields a thousand raw candidates, mostly repeats: they are
// de-duplicated before sanitising, and only until MaxPerCapture are kept,
// so the sanitiser runs some fifty times, not a thousand; a second pass
// catches items that only read alike once their secrets are marks.
//
// It stops with ctx's error once ctx is done (a hook's deadline).
func finish(ctx context.Context, cands []Candidate, keepOrder bool) ([]Candidate, error) {
	if !keepOrder {
		sort.SliceStable(cands, func(i, j int) bool {
			return priority(cands[i].Category) < priority(cands[j].Category)
		})
	}
	cands, err := dedupe(ctx.Err, cands, DuplicateThreshold, keptBeforeSanitising)
	if err != nil {
		return nil, err
	}
	out := make([]Candidate, 0, min(len(cands), MaxPerCapture))
	for _, c := range cands {
		if len(out) == MaxPerCapture {
			break
		}
		c.Content = strings.TrimSpace(sanitize.Text(strings.TrimSpace(c.Content)))
		if utf8.RuneCountInString(c.Content) < MinItemChars {
			continue
		}
		c.Summary = memory.Summarize(c.Content)
		for i, f := range c.Files {
			c.Files[i] = sanitize.Text(f)
		}
		out = append(out, c)
	}
	return Dedupe(out, DuplicateThreshold), nil
}
