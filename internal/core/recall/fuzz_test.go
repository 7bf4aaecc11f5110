package recall

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

// FuzzSelect feeds outside text (branch names, commit subjects, stored
// content from other tools) through keywords, ranking and rendering: the
// body stays within any budget that fits its footer, stays valid UTF-8 when
// the input is, and accounts for every candidate.
func FuzzSelect(f *testing.F) {
	f.Add("feat/42-token-refresh", "Use the middleware.\nIt refreshes tokens.", "2026-02-01T00:00:00.000Z", 3, 1000)
	f.Add("", "", "not a time", 0, 0)
	f.Add("ünïcode—branch", strings.Repeat("é", 3000), "2030-01-01T00:00:00.000Z", 50, 300)
	f.Fuzz(func(t *testing.T, context, content, ts string, recalls, maxChars int) {
		if maxChars < 0 || maxChars > 100000 {
			return
		}
		kw := Keywords(recallKeywordsForFuzz, context)
		o := memory.Observation{ID: "obs-a-1-1-abcdef", Agent: "a", IssueNumber: 1, Category: memory.Decision,
			Content: content, Summary: memory.Summarize(content), Timestamp: ts, RecallCount: recalls}
		ranked := Rank([]Candidate{{Obs: o}, {Obs: o}, {Obs: memory.Observation{ID: "b", Summary: context}}}, kw, now)
		for _, s := range ranked {
			if s.Score < 0 || s.Score > 1.0000001 {
				t.Fatalf("score %v out of [0,1]", s.Score)
			}
		}
		res := Select(ranked, Options{Agent: "a", MaxChars: maxChars, Query: context})
		if maxChars >= 2*footerReserve && len(res.Body) > maxChars {
			t.Fatalf("body %d bytes > %d", len(res.Body), maxChars)
		}
		if len(res.Shown)+res.More != len(ranked) {
			t.Fatalf("shown %d + more %d != %d", len(res.Shown), res.More, len(ranked))
		}
		if !utf8.ValidString(res.Body) {
			t.Fatalf("invalid UTF-8 body")
		}
	})
}

const recallKeywordsForFuzz = 40
