// ParseSummary: the reference summary a compaction writes, and its rules
// (header levels and aliases, short and unknown items, private spans,
// secrets, near duplicates, the cap and the summary's length).

package capture

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

func TestParseSummaryReference(t *testing.T) {
	t.Parallel()
	res := ParseSummary(string(read(t, "summary_reference.md")))
	wantCats := []memory.Category{memory.Decision, memory.CodeChange, memory.Error, memory.KeyFact}
	wantText := []string{
		"Decided to use per-issue JSON files for storage",
		"Created src/memory/types.ts",
		"Error: ENOENT when reading manifest on first run",
		"Manifest must stay under 3MB at 50K observations",
	}
	if len(res.Candidates) != 4 {
		t.Fatalf("got %d candidates:\n%s", len(res.Candidates), dump(res.Candidates))
	}
	for i, c := range res.Candidates {
		if c.Category != wantCats[i] || c.Content != wantText[i] || c.Summary != wantText[i] {
			t.Errorf("candidate %d = %s", i, c)
		}
		// "~500 tokens" shared out over four observations.
		if c.SourceBytes != 500 {
			t.Errorf("source bytes %d, want 500", c.SourceBytes)
		}
	}
}

func TestParseSummaryRules(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 80) // 400 characters
	var many strings.Builder
	many.WriteString("## Decisions\n")
	for i := range 60 {
		fmt.Fprintf(&many, "- decision number %02d about the store\n", i)
	}
	tests := []struct {
		name  string
		in    string
		wants []string // "category|content"
	}{
		{"hash levels and case", "# DECISIONS\n- Use one file per issue\n## code changes\n- Edited store.go heavily\n### errors found\n- ENOENT on first run here",
			[]string{"decision|Use one file per issue", "code-change|Edited store.go heavily", "error|ENOENT on first run here"}},
		{"header aliases", "## File Changes\n* Created types.ts file\n## Modified Files\n- Changed index.ts file\n## Errors\n- Timeout while locking\n## Errors Encountered\n- Another failure here\n## Key Facts\n- Manifest under 3MB always",
			[]string{"code-change|Created types.ts file", "code-change|Changed index.ts file", "error|Timeout while locking", "error|Another failure here", "key-fact|Manifest under 3MB always"}},
		{"short items dropped", "## Decisions\n- tiny\n- 123456789\n- 1234567890", []string{"decision|1234567890"}},
		{"unknown section ignored", "## Context Compaction Summary\n- not an observation at all\n## Decisions\n- A real decision here\n#### Key Facts\n- four hashes is not a header",
			[]string{"decision|A real decision here", "decision|four hashes is not a header"}},
		{"bullets only under unknown headers", "## Notes\n- not an observation at all", []string{"compaction-summary|## Notes\n- not an observation at all"}},
		{"no bullets becomes one summary", "We talked about storage and chose JSON.", []string{"compaction-summary|We talked about storage and chose JSON."}},
		{"empty", "  \n", nil},
		{"private spans bullets", "## Decisions\n- Keep this decision visible\n- <private>hide this one\n- and this one too</private>\n- Keep the last decision too",
			[]string{"decision|Keep this decision visible", "decision|Keep the last decision too"}},
		{"secrets redacted", "## Key Facts\n- Deploy key is AKIAIOSFODNN7EXAMPLE for staging",
			[]string{"key-fact|Deploy key is [REDACTED:aws-access-key] for staging"}},
		{"near duplicates dropped", "## Decisions\n- Use per-issue JSON files for storage\n- use per-issue json files for storage.\n- Use a manifest index for search",
			[]string{"decision|Use per-issue JSON files for storage", "decision|Use a manifest index for search"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ParseSummary(tt.in)
			var got []string
			for _, c := range res.Candidates {
				got = append(got, string(c.Category)+"|"+c.Content)
			}
			if strings.Join(got, "\n") != strings.Join(tt.wants, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.wants, "\n"))
			}
			checkInvariants(t, res.Candidates)
		})
	}
	t.Run("cap and summary length", func(t *testing.T) {
		res := ParseSummary(many.String() + "- " + long + "\n")
		if len(res.Candidates) != MaxPerCapture {
			t.Fatalf("%d candidates, want %d", len(res.Candidates), MaxPerCapture)
		}
		res = ParseSummary("## Key Facts\n- " + long)
		s := res.Candidates[0].Summary
		if utf8.RuneCountInString(s) != 240 || !strings.HasSuffix(s, "...") {
			t.Fatalf("summary of %d characters: %q", utf8.RuneCountInString(s), s)
		}
	})
}
