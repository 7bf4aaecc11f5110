package capture

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentx-dev/agentx/internal/core/lazy"
	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

// The old pipeline's section headers (docs/memory-pipeline.md, "What is
// captured"): `#` to `###`, case-insensitive.
var (
	headerRe    = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^\s{0,3}(#{1,3})\s+(.*?)\s*#*\s*$`) }}
	compactedRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)compacted from \d+ messages? \(~?(\d+) tokens?\)`)
	}}
)

func sectionCategory(title string) (memory.Category, bool) {
	switch strings.ToLower(strings.Join(strings.Fields(title), " ")) {
	case "decisions":
		return memory.Decision, true
	case "code changes", "file changes", "modified files":
		return memory.CodeChange, true
	case "errors", "errors encountered", "errors found":
		return memory.Error, true
	case "key facts":
		return memory.KeyFact, true
	}
	return "", false
}

// ParseSummary extracts observations from a session summary in the old
// compaction format: bullets (`- ` or `* `) under the Decisions, Code
// Changes (File Changes, Modified Files), Errors (Encountered, Found) and
// Key Facts headers. Items under MinItemChars are dropped and at most
// MaxPerCapture kept, in order. A text with no recognised bullets becomes
// one compaction-summary observation, as the old pipeline did.
//
// Private regions are removed from the whole text first, so a region that
// spans several bullets hides all of them.
func ParseSummary(text string) Result {
	res, _ := ParseSummaryContext(context.Background(), text)
	return res
}

// ParseSummaryContext is ParseSummary, stopping with ctx's error once ctx
// is done (a hook's deadline).
func ParseSummaryContext(ctx context.Context, text string) (Result, error) {
	text = sanitize.Private(text)
	var cands []Candidate
	var cat memory.Category
	inSection := false
	for i, line := range strings.Split(text, "\n") {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
		line = strings.TrimRight(line, "\r")
		if m := headerRe.Get().FindStringSubmatch(line); m != nil {
			cat, inSection = sectionCategory(m[2])
			continue
		}
		if !inSection {
			continue
		}
		item, ok := bullet(line)
		if !ok || len([]rune(item)) < MinItemChars {
			continue
		}
		cands = append(cands, Candidate{Category: cat, Content: item, SourceBytes: len(line) + 1})
	}
	res := Result{SourceBytes: int64(len(text)), EndOffset: int64(len(text))}
	if len(cands) == 0 {
		body := strings.TrimSpace(text)
		if body == "" {
			return res, nil
		}
		cands = []Candidate{{Category: memory.CompactionSummary, Content: body, SourceBytes: len(text)}}
	}
	// "Compacted from 10 messages (~500 tokens)" says how much conversation
	// the summary stands for: share it out, so recall can report what it
	// displaced rather than the summary's own few bytes.
	if m := compactedRe.Get().FindStringSubmatch(text); m != nil {
		if tokens, err := strconv.Atoi(m[1]); err == nil && tokens > 0 && tokens < 1<<30 {
			per := tokens * 4 / len(cands)
			for i := range cands {
				cands[i].SourceBytes = per
			}
		}
	}
	cands, err := finish(ctx, cands, true)
	if err != nil {
		return Result{}, err
	}
	res.Candidates = cands
	return res, nil
}

// bullet returns the text of a `- ` or `* ` list item.
func bullet(line string) (string, bool) {
	t := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		return strings.TrimSpace(t[2:]), true
	}
	return "", false
}
