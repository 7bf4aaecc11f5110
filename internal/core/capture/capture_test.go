package capture

import (
	"encoding/json"
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

func TestExtractClaude(t *testing.T) {
	t.Parallel()
	res, err := ExtractFile("testdata/claude_session.jsonl", Options{Cwd: "/home/dev/agentx"})
	if err != nil {
		t.Fatal(err)
	}
	checkCandidates(t, res.Candidates, []want{
		{memory.CompactionSummary, "Analysis: the engineer built the per-issue store"},
		{memory.Decision, "I decided to use per-issue JSON files for storage"},
		{memory.Decision, "We'll go with a 30 s stale threshold for locks"},
		{memory.Error, "Command failed: `go test ./internal/core/memory/`: --- FAIL: TestStoreAppend"},
		{memory.KeyFact, "Note: the manifest must be created on first write"},
		{memory.KeyFact, "The lock file requires a `created` field"},
		{memory.CodeChange, "Modified internal/core/memory/store.go (Write x1, Edit x2)"},
		{memory.CodeChange, "Modified internal/core/memory/manifest.go (MultiEdit x1)"},
	})
	all := dump(res.Candidates)
	for _, leak := range []string{"hunter2", "ghp_16C7", "12 Elm St", "goroutine pool", "has not been read", "Let me", "This session is being continued"} {
		if strings.Contains(all, leak) {
			t.Errorf("%q leaked into:\n%s", leak, all)
		}
	}
	if res.Skipped != 1 || res.Lines != 23 {
		t.Errorf("lines %d skipped %d, want 23 and 1 (the torn line)", res.Lines, res.Skipped)
	}
	// Priority order: summary, decisions, errors, facts, code changes.
	last := -1
	for _, c := range res.Candidates {
		if p := priority(c.Category); p < last {
			t.Fatalf("out of priority order:\n%s", all)
		} else {
			last = p
		}
	}
	for _, c := range res.Candidates {
		if c.Category == memory.CodeChange && (len(c.Files) != 1 || strings.HasPrefix(c.Files[0], "/")) {
			t.Errorf("code change files %v, want one path relative to cwd", c.Files)
		}
	}
	if res.SourceBytes != int64(len(read(t, "claude_session.jsonl"))) || res.TotalSourceBytes() == 0 {
		t.Errorf("source bytes %d / %d", res.SourceBytes, res.TotalSourceBytes())
	}
}

func TestExtractCodex(t *testing.T) {
	t.Parallel()
	res, err := ExtractFile("testdata/codex_rollout.jsonl", Options{Cwd: "/home/dev/agentx"})
	if err != nil {
		t.Fatal(err)
	}
	checkCandidates(t, res.Candidates, []want{
		{memory.CompactionSummary, "recall scoring implemented with SPEC weights"},
		{memory.Decision, "I'll use the SPEC's Phase 3 weights"},
		{memory.KeyFact, "Note: recency decays as 1/(1+days/30)"},
		{memory.Error, "Command failed: `go test ./internal/core/recall/...`: internal/core/recall/score.go:17:9: undefined: math.Clamp"},
		{memory.CodeChange, "Modified internal/core/recall/score.go (apply_patch x1)"},
		{memory.CodeChange, "Modified internal/core/recall/score_test.go (apply_patch x1)"},
	})
	// The passing test run ("Exit code: 0") is not an error, and the
	// event_msg copy of the assistant's message adds nothing.
	n := 0
	for _, c := range res.Candidates {
		if c.Category == memory.Error {
			n++
		}
		if c.Category == memory.Decision && strings.Contains(c.Content, "weights.") && !strings.Contains(c.Content, "0.4") {
			t.Errorf("event_msg duplicate captured: %s", c)
		}
	}
	if n != 1 {
		t.Errorf("%d errors, want 1:\n%s", n, dump(res.Candidates))
	}
}

func TestExtractCopilot(t *testing.T) {
	t.Parallel()
	res, err := ExtractFile("testdata/copilot_events.jsonl", Options{Cwd: "/home/dev/agentx"})
	if err != nil {
		t.Fatal(err)
	}
	checkCandidates(t, res.Candidates, []want{
		{memory.CompactionSummary, "Digest package created"},
		{memory.Decision, "We decided to render the chart as mermaid"},
		{memory.KeyFact, "Important: the digest window defaults to 7 days."},
		{memory.Error, "Command failed: `go vet ./internal/core/digest/`: internal/core/digest/digest.go:12:2"},
		{memory.CodeChange, "Modified internal/core/digest/digest.go (create x1, edit x1)"},
	})
	for _, c := range res.Candidates {
		if strings.Contains(c.Content, "report_intent") || strings.Contains(c.Content, "Intent logged") {
			t.Errorf("tool chatter captured: %s", c)
		}
	}
}

func TestParsePayload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file                    string
		host                    Host
		event, session, reason  string
		transcriptSuffix, extra string
	}{
		{"claude_sessionend.json", Claude, "SessionEnd", "8f4c2a1e-5b7d-4e9a-a3c1-2d6f0b9e7a41", "prompt_input_exit", ".jsonl", ""},
		{"claude_postcompact.json", Claude, "PostCompact", "8f4c2a1e-5b7d-4e9a-a3c1-2d6f0b9e7a41", "", ".jsonl", "## Decisions"},
		{"codex_stop.json", Codex, "Stop", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "", "0199a1b2.jsonl", "Phase 3 weights"},
		{"copilot_sessionend.json", Copilot, "", "c0ffee00-1234-4abc-9def-001122334455", "complete", "events.jsonl", ""},
		{"copilot_agentstop.json", Copilot, "", "c0ffee00-1234-4abc-9def-001122334455", "end_turn", "events.jsonl", ""},
		// Codex 0.169: SessionEnd has no turn_id; its rollout says Codex.
		{"codex_sessionend.json", Codex, "SessionEnd", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "other", "0199a1b2.jsonl", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := read(t, tt.file)
			if !LooksLikePayload(data) {
				t.Fatal("not recognised as a payload")
			}
			p, err := ParsePayload(data)
			if err != nil {
				t.Fatal(err)
			}
			if p.Host != tt.host || p.Event != tt.event || p.SessionID != tt.session || p.Reason != tt.reason ||
				!strings.HasSuffix(p.TranscriptPath, tt.transcriptSuffix) || p.Cwd != "/home/dev/agentx" {
				t.Errorf("got %+v", p)
			}
			if tt.extra != "" && !strings.Contains(p.CompactSummary+p.LastAssistantMessage, tt.extra) {
				t.Errorf("extra field lost: %+v", p)
			}
		})
	}
	for _, bad := range []string{"", "[]", "not json", `{"foo":1}`, `{"session_id":`} {
		if _, err := ParsePayload([]byte(bad)); err == nil {
			t.Errorf("ParsePayload(%q) accepted", bad)
		}
	}
	if LooksLikePayload([]byte("## Decisions\n- x")) {
		t.Error("a summary taken for a payload")
	}
	p, _ := ParsePayload([]byte(`{"sessionId":"s","cwd":"/w","transcriptPath":"t.jsonl"}`))
	if p.TranscriptPath != "/w/t.jsonl" {
		t.Errorf("relative transcript path: %q", p.TranscriptPath)
	}
}

// copyTranscript puts a fixture where a payload can point at it.
func copyTranscript(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, read(t, name), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFromPayload(t *testing.T) {
	t.Parallel()
	path := copyTranscript(t, "claude_session.jsonl")
	p := Payload{Host: Claude, Event: "PostCompact", SessionID: "s", TranscriptPath: path, Cwd: "/home/dev/agentx",
		CompactSummary: "Compacted: the per-issue store is done; the manifest is created on first write."}
	res, err := FromPayload(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Candidates[0]; c.Category != memory.CompactionSummary || !strings.HasPrefix(c.Content, "Compacted: the per-issue") {
		t.Fatalf("first candidate %s", c)
	}
	checkCandidates(t, res.Candidates, []want{{memory.Decision, "per-issue JSON files"}})

	// Codex Stop without a transcript: the last message is what there is.
	res, err = FromPayload(Payload{Host: Codex, LastAssistantMessage: "I'll use the SPEC's Phase 3 weights for recall scoring."}, Options{})
	if err != nil || len(res.Candidates) != 1 || res.Candidates[0].Category != memory.Decision {
		t.Fatalf("codex last message: %v %s", err, dump(res.Candidates))
	}
	if _, err := FromPayload(Payload{TranscriptPath: filepath.Join(t.TempDir(), "missing.jsonl")}, Options{}); err == nil {
		t.Fatal("missing transcript accepted")
	}
}

func TestExtractOffsetAndPartialLine(t *testing.T) {
	t.Parallel()
	data := read(t, "claude_session.jsonl")
	lines := strings.SplitAfter(string(data), "\n")
	half := strings.Join(lines[:12], "")
	torn := half + lines[12][:40] // the host is still writing line 13
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := ExtractFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if first.EndOffset != int64(len(half)) {
		t.Fatalf("EndOffset %d, want %d (before the torn line)", first.EndOffset, len(half))
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := ExtractFile(path, Options{Offset: first.EndOffset})
	if err != nil {
		t.Fatal(err)
	}
	if second.EndOffset != int64(len(data)) || second.SourceBytes != int64(len(data)-len(half)) {
		t.Fatalf("second: end %d source %d", second.EndOffset, second.SourceBytes)
	}
	for _, c := range second.Candidates {
		if strings.Contains(c.Content, "I decided to use per-issue") {
			t.Fatalf("the first half was captured again: %s", c)
		}
	}
	// An offset past the end (the transcript was replaced) starts over.
	again, _ := ExtractFile(path, Options{Offset: int64(len(data)) + 100})
	if again.SourceBytes != int64(len(data)) {
		t.Fatalf("offset past end: read %d", again.SourceBytes)
	}
	// MaxBytes reads the end of a long segment, from a line boundary.
	tail, _ := ExtractFile(path, Options{MaxBytes: 3000})
	if !tail.Truncated || tail.Skipped != 0 || tail.EndOffset != int64(len(data)) {
		t.Fatalf("tail read: %+v", tail)
	}
}

func TestFromInput(t *testing.T) {
	t.Parallel()
	res, p, err := FromInput(read(t, "summary_reference.md"), Options{})
	if err != nil || p.Host != "" || len(res.Candidates) != 4 {
		t.Fatalf("summary: %v %+v %d", err, p, len(res.Candidates))
	}
	path := copyTranscript(t, "codex_rollout.jsonl")
	payload := fmt.Sprintf(`{"session_id":"x","turn_id":"3","transcript_path":%q,"cwd":"/home/dev/agentx","hook_event_name":"Stop"}`, path)
	res, p, err = FromInput([]byte(payload), Options{})
	if err != nil || p.Host != Codex || len(res.Candidates) < 5 {
		t.Fatalf("payload: %v %+v\n%s", err, p, dump(res.Candidates))
	}
	if _, _, err := FromInput([]byte(`{"nothing":1}`), Options{}); err == nil {
		t.Fatal("unrecognised payload accepted")
	}
	if SourceTokens(0) != 0 || SourceTokens(1) != 1 || SourceTokens(8) != 2 {
		t.Fatal("SourceTokens")
	}
}

func TestTurnKey(t *testing.T) {
	t.Parallel()
	path := copyTranscript(t, "claude_session.jsonl")
	p := Payload{Host: Claude, SessionID: "s1", TranscriptPath: path}
	k1 := TurnKey(p)
	if k1 != TurnKey(Payload{Host: Claude, SessionID: "s1", TranscriptPath: path, Event: "SessionEnd"}) {
		t.Fatal("Stop and SessionEnd of one turn have different keys")
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"next turn"}]}}` + "\n")
	f.Close()
	if TurnKey(p) == k1 {
		t.Fatal("a new turn kept the old key")
	}
	if TurnKey(Payload{SessionID: "s2"}) == TurnKey(Payload{SessionID: "s3"}) {
		t.Fatal("sessions without transcripts share a key")
	}
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

// A failed command is quoted in backticks as written, even when it holds a
// backtick itself: a stored observation's text must stay what earlier
// versions wrote, or dedupe would store the same failure twice.
func TestFailedCommandQuotedAsWritten(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"echo ` + "`date`" + ` && go test ./x/"}}]},"timestamp":"2026-03-01T17:00:08.056Z"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"Exit code 1\n--- FAIL: TestX (0.00s)","is_error":true}]},"timestamp":"2026-03-01T17:00:09.063Z"}`,
	}
	res := extractLines(t, lines)
	want := "Command failed: `echo `date` && go test ./x/`: --- FAIL: TestX (0.00s)"
	for _, c := range res.Candidates {
		if c.Category == memory.Error {
			if c.Content != want {
				t.Fatalf("content %q, want %q", c.Content, want)
			}
			return
		}
	}
	t.Fatalf("no error candidate in:\n%s", dump(res.Candidates))
}

// A secret in a failed command or its output is redacted before the line
// is cut to 200 characters (issue 26: the cut came first and kept 39 of an
// AWS secret's 40 characters, which no rule then recognised).
func TestFailedCommandRedactedBeforeCut(t *testing.T) {
	t.Parallel()
	const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	pad := strings.Repeat("x", 200-len("aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE secret ")-30)
	cmd := "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE secret " + pad + " " + secret
	out := "error: " + pad + " AKIAIOSFODNN7EXAMPLE " + secret
	lines := []string{
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"` + cmd + `"}}]},"timestamp":"2026-03-01T17:00:08.056Z"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"Exit code 1\n` + out + `","is_error":true}]},"timestamp":"2026-03-01T17:00:09.063Z"}`,
	}
	res := extractLines(t, lines)
	found := false
	for _, c := range res.Candidates {
		if c.Category != memory.Error {
			continue
		}
		found = true
		if strings.Contains(c.Content, secret[:20]) || strings.Contains(c.Content, "AKIAIOSF") {
			t.Errorf("a secret survives the cut: %q", c.Content)
		}
	}
	if !found {
		t.Fatalf("no error candidate in:\n%s", dump(res.Candidates))
	}
}

// extractLines extracts from a transcript of the given JSONL lines.
func extractLines(t *testing.T, lines []string) Result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := ExtractFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A private region that opens in one assistant message and closes in a
// later one hides everything between, the messages between included
// (issue 26 item 8: the second message's part before the closing tag was
// kept); and a tag with a long reason is a tag.
func TestPrivateRegionAcrossMessages(t *testing.T) {
	t.Parallel()
	msg := func(i int, text string) string {
		b, _ := json.Marshal(text)
		return fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":%s}]},"timestamp":"2026-03-01T17:00:%02d.000Z"}`, b, i)
	}
	reason := strings.Repeat("customer data under the DPA ", 6)
	res := extractLines(t, []string{
		msg(1, "We decided to use Postgres for the queue. <private reason=\""+reason+"\">We decided the customer is Acme Corp."),
		msg(2, "We decided their contract number is 4711.</private> We decided to ship on Friday."),
		msg(3, "<private reason=\""+reason+"\">We decided the salary band is secret.</private>We decided to keep the cache."),
	})
	all := dump(res.Candidates)
	for _, leak := range []string{"Acme", "4711", "salary"} {
		if strings.Contains(all, leak) {
			t.Errorf("private text %q captured:\n%s", leak, all)
		}
	}
	for _, keep := range []string{"Postgres", "Friday", "cache"} {
		if !strings.Contains(all, keep) {
			t.Errorf("%q lost:\n%s", keep, all)
		}
	}
}

// Copilot CLI fires agentStop before it writes the turn's last message
// (issue 31): a mid-session capture reads up to the last turn that ended
// and leaves the rest, cursor included, for the next one.
func TestExtractCompleteTurns(t *testing.T) {
	t.Parallel()
	turn1 := `{"type":"assistant.turn_start","data":{"turnId":"0"}}
{"type":"assistant.message","data":{"content":"We decided to keep the cache in memory."}}
{"type":"assistant.turn_end","data":{"turnId":"0"}}
`
	turn2 := `{"type":"assistant.turn_start","data":{"turnId":"1"}}
{"type":"assistant.message","data":{"content":"We decided to store the index on disk."}}
`
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(turn1+turn2), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := ExtractFile(path, Options{CompleteTurns: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.EndOffset != int64(len(turn1)) {
		t.Errorf("EndOffset = %d, want %d (the end of the last turn that ended)", res.EndOffset, len(turn1))
	}
	if got := dump(res.Candidates); !strings.Contains(got, "cache in memory") || strings.Contains(got, "index on disk") {
		t.Errorf("candidates:\n%s", got)
	}
	// At the session's end everything written is read, from the cursor on.
	res, err = ExtractFile(path, Options{Offset: res.EndOffset})
	if err != nil {
		t.Fatal(err)
	}
	if got := dump(res.Candidates); !strings.Contains(got, "index on disk") || strings.Contains(got, "cache in memory") {
		t.Errorf("candidates from the cursor:\n%s", got)
	}
	// No turn ended yet: nothing read, the cursor stays.
	res = Extract([]byte(turn2), Options{CompleteTurns: true})
	if res.EndOffset != 0 || len(res.Candidates) != 0 {
		t.Errorf("an unfinished turn read: %d, %s", res.EndOffset, dump(res.Candidates))
	}
}
