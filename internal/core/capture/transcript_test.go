// Extraction from the hosts' transcripts (Claude Code, Codex, Copilot CLI):
// what each fixture yields, the offset and a torn last line, failed commands
// quoted as written and redacted before the cut, a private region across
// messages, and only the turns that ended.

package capture

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/memory"
)

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
