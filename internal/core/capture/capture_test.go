// What every capture must hold (checkInvariants) and the helpers the
// capture tests share; the classification of prose into decisions and key
// facts, private spans, dedupe, and the fuzz targets of the three parsers.
// The summaries are tested in summary_test.go, the transcripts in
// transcript_test.go, the hooks' payloads in payload_test.go.

package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentx-dev/agentx/internal/core/memory"
	"github.com/agentx-dev/agentx/internal/core/sanitize"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type want struct {
	cat      memory.Category
	contains string
}

func checkCandidates(t *testing.T, got []Candidate, wants []want) {
	t.Helper()
	for _, w := range wants {
		found := false
		for _, c := range got {
			if c.Category == w.cat && strings.Contains(c.Content, w.contains) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no %s containing %q in:\n%s", w.cat, w.contains, dump(got))
		}
	}
	checkInvariants(t, got)
}

// checkInvariants holds for every capture whatever the input.
func checkInvariants(t testing.TB, got []Candidate) {
	t.Helper()
	if len(got) > MaxPerCapture {
		t.Fatalf("%d candidates, more than %d", len(got), MaxPerCapture)
	}
	for _, c := range got {
		if !c.Category.Known() {
			t.Fatalf("unknown category %q", c.Category)
		}
		if utf8.RuneCountInString(c.Content) > sanitize.MaxChars {
			t.Fatalf("content longer than %d characters", sanitize.MaxChars)
		}
		if utf8.RuneCountInString(c.Content) < MinItemChars {
			t.Fatalf("content %q under %d characters", c.Content, MinItemChars)
		}
		if sanitize.Text(c.Content) != c.Content {
			t.Fatalf("content not sanitised: %q", c.Content)
		}
		if c.Summary != memory.Summarize(c.Content) {
			t.Fatalf("summary %q is not the reference cut of %q", c.Summary, c.Content)
		}
		if c.SourceBytes < 0 {
			t.Fatalf("negative source bytes")
		}
	}
}

func dump(cs []Candidate) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "  %s %v\n", c, c.Files)
	}
	return b.String()
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want memory.Category
	}{
		{"I'll use a manifest index for search across issues.", memory.Decision},
		{"We decided to keep the lock order manifest first.", memory.Decision},
		{"Going with the per-issue layout since readers need it.", memory.Decision},
		{"Decision: the spool lives under .agentx/memory/spool.", memory.Decision},
		{"Use RE2 patterns instead of hand-written scanners.", memory.Decision},
		{"Note: PowerShell deletes locks without a created field.", memory.KeyFact},
		{"Important - the host gives SessionEnd hooks 1.5 s.", memory.KeyFact},
		{"The manifest index requires a generation stamp.", memory.KeyFact},
		{"Let me read the file to understand the layout.", ""},
		{"I'll check the tests first before changing anything.", ""},
		{"I'll use the Read tool to open the file.", ""},
		{"Now I'll run the tests again to be sure.", ""},
		{"Perfect, all done here.", ""},
		{"short", ""},
	}
	for _, tt := range tests {
		got, _ := classify(tt.s)
		if got != tt.want {
			t.Errorf("classify(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
	got := sentences("- **Decision:** use JSON. Next we test.\n```\nI'll use code\n```\n1. The file e.g. Foo stays. Done!")
	want := []string{"Decision: use JSON.", "Next we test.", "The file e.g. Foo stays.", "Done!"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sentences = %q", got)
	}
}

func TestPrivateSpansSentencesAndLines(t *testing.T) {
	t.Parallel()
	got := proseCandidates("We decided to ship JSON files. <private>Note: I'll use the staging host db7. We decided to keep hunter2.</private> Note: the lock needs a created field.", 100)
	all := dump(got)
	if strings.Contains(all, "staging") || strings.Contains(all, "hunter2") || len(got) != 2 {
		t.Fatalf("private prose leaked or lost:\n%s", all)
	}
	x := newExtractor(Options{})
	x.toolCall("t1", "Bash", []byte(`{"command":"make deploy"}`), 10)
	x.toolResult("t1", true, "error: first failure\n<private>error: secret host db7\nerror: more</private>\nerror: visible failure", 10)
	if e := dump(x.errs); strings.Contains(e, "db7") || !strings.Contains(e, "visible failure") {
		t.Fatalf("private tool output leaked:\n%s", e)
	}
}

func TestDedupe(t *testing.T) {
	t.Parallel()
	in := []Candidate{
		{Category: memory.Decision, Content: "Use per-issue JSON files for storage", SourceBytes: 10},
		{Category: memory.Decision, Content: "use per issue json files for the storage", SourceBytes: 5},
		{Category: memory.KeyFact, Content: "Use per-issue JSON files for storage"},
		{Category: memory.CodeChange, Content: "Modified internal/core/a.go (Edit x1)", Files: []string{"internal/core/a.go"}},
		{Category: memory.CodeChange, Content: "Modified internal/core/b.go (Edit x1)", Files: []string{"internal/core/b.go"}},
	}
	out := Dedupe(in, DuplicateThreshold)
	if len(out) != 4 || out[0].SourceBytes != 15 {
		t.Fatalf("Dedupe:\n%s", dump(out))
	}
	kept := Known(out, []string{"Use per-issue JSON files for storage."}, DuplicateThreshold)
	if len(kept) != 2 {
		t.Fatalf("Known kept:\n%s", dump(kept))
	}
	if Similarity(Words(""), Words("")) != 0 {
		t.Fatal("empty texts are not duplicates")
	}
}

func FuzzParseSummary(f *testing.F) {
	f.Add(string(read(f, "summary_reference.md")))
	f.Add("## Decisions\n- <private>x\n- y</private> visible item here\n")
	f.Add("#Decisions\n*  spaced bullet item here\n")
	f.Fuzz(func(t *testing.T, in string) {
		checkInvariants(t, ParseSummary(in).Candidates)
	})
}

func FuzzParsePayload(f *testing.F) {
	for _, name := range []string{"claude_sessionend.json", "claude_postcompact.json", "codex_stop.json", "copilot_sessionend.json"} {
		f.Add(read(f, name))
	}
	f.Add([]byte(`{"sessionId":1}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := ParsePayload(in)
		if err == nil && p.Host == "" {
			t.Fatal("accepted without a host")
		}
	})
}

func FuzzExtract(f *testing.F) {
	for _, name := range []string{"claude_session.jsonl", "codex_rollout.jsonl", "copilot_events.jsonl"} {
		data := read(f, name)
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte(`{"type":"assistant","message":{"content":"x"}}` + "\n" + `{"type":"user","message":{"content":[{"type":"tool_result","is_error":true}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		res := Extract(in, Options{Cwd: "/w"})
		if res.EndOffset > int64(len(in)) || res.EndOffset < 0 {
			t.Fatalf("EndOffset %d of %d", res.EndOffset, len(in))
		}
		checkInvariants(t, res.Candidates)
	})
}
